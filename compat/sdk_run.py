#!/usr/bin/env python3
"""Runs the vendor's generated Python SDK (github.com/meitner-se/api-client-python,
package `meitner`) against a running `skolkit serve`, the way a user of the
SDK would, and prints one table row per call: auth, resource, operation,
result.

The SDK is not part of skolkit and is never copied into this repository.
Point PYTHONPATH at its `src/` folder (and at its dependencies); when it
cannot be imported the script says so and exits 0 with SKIP, so that CI,
which cannot fetch it, skips. docs/compatibility.md has the exact commands.

Environment:
  SKOLKIT_URL            the mock's root URL (default http://127.0.0.1:8080)
  SKOLKIT_CLIENT_ID      (default skolkit-client)
  SKOLKIT_CLIENT_SECRET  (default skolkit-secret)

Exit status: 0 when every call succeeded (or SKIP), 1 when one failed.
"""

import datetime as dt
import os
import random
import sys
import traceback

try:
    import meitner
    from meitner import Meitner, models
except Exception as e:  # noqa: BLE001 - any import problem means: no SDK here
    print("SKIP: the vendor SDK (package meitner) cannot be imported: %s" % e)
    print("      see docs/compatibility.md for how to fetch it and set PYTHONPATH")
    sys.exit(0)

URL = os.environ.get("SKOLKIT_URL", "http://127.0.0.1:8080").rstrip("/")
CLIENT_ID = os.environ.get("SKOLKIT_CLIENT_ID", "skolkit-client")
CLIENT_SECRET = os.environ.get("SKOLKIT_CLIENT_SECRET", "skolkit-secret")

rows = []


def call(auth, resource, op, fn, sdk_fault=None):
    """Runs one call; records ok, or the exception. sdk_fault(result) returns
    a note when the outcome is the SDK's own fault (and the mock is right)."""
    try:
        res = fn()
    except Exception as e:  # noqa: BLE001 - the table records every failure
        msg = "%s: %s" % (type(e).__name__, str(e).replace("\n", " ")[:300])
        rows.append((auth, resource, op, "FAIL " + msg))
        if os.environ.get("SKOLKIT_TRACE"):
            traceback.print_exc()
        return None
    note = sdk_fault(res) if sdk_fault else None
    rows.append((auth, resource, op, "ok" + (" (" + note + ")" if note else "")))
    return res


def identity():
    born = dt.date(1950, 1, 1) + dt.timedelta(days=random.randrange(365 * 40))
    return "%s-%02d%02d" % (born.strftime("%Y%m%d"), random.randrange(100), random.randrange(100))


def since():
    return dt.datetime(2000, 1, 1, tzinfo=dt.timezone.utc)


def next_page_note(res):
    # The SDK's pagination hint reads $.data.resultArray; the documented list
    # body is {data: [...]}: next() finds no page 2 on any server.
    try:
        nxt = res.next()
    except Exception as e:  # noqa: BLE001
        return "next(): %s" % type(e).__name__
    if nxt is None and res.result.pagination.total > len(res.result.data):
        return "next() returns None although more pages exist: the SDK's pagination reads $.data.resultArray, not the documented data array (SDK fault)"
    return None


def run(auth, security):
    with Meitner(security=security, server_url=URL + "/directory/v1") as m:
        A = auth
        # Units first: schools refer to them.
        units = call(A, "unit", "list", lambda: m.units.list(limit=2), next_page_note)
        call(A, "unit", "list offset=1", lambda: m.units.list(limit=2, offset=1))
        if units and units.result.data:
            call(A, "unit", "get", lambda: m.units.get(id=units.result.data[0].id))
        unit = call(A, "unit", "create", lambda: m.units.create(title="SDK-förvaltning", description="skapad av SDK"))
        if unit:
            call(A, "unit", "update", lambda: m.units.update(id=unit.result.id, title="SDK-förvaltning 2", description=None))
        call(A, "unit", "_search (meta + array contains)", lambda: m.units.search(filter_={
            "or_condition": False, "greater_than": {"meta": {"updated_at": since()}}, "contains": {"title": ["SDK-förvaltning 2", "x"]}}))

        schools = call(A, "school", "list", lambda: m.schools.list(limit=2), next_page_note)
        call(A, "school", "list offset=1", lambda: m.schools.list(limit=2, offset=1))
        school_id = schools.result.data[0].id if schools and schools.result.data else None
        if school_id:
            call(A, "school", "get", lambda: m.schools.get(id=school_id))
        school = call(A, "school", "create", lambda: m.schools.create(
            title="SDK-skolan", school_type="GR",
            unit_id=unit.result.id if unit else None, municipality_code="0180", external={"source_id": "sdk-1"}))
        if school:
            call(A, "school", "update", lambda: m.schools.update(id=school.result.id, title="SDK-skolan 2", unit_code="12345678"))
        call(A, "school", "_search (meta + array contains)", lambda: m.schools.search(filter_={
            "or_condition": False, "greater_than": {"meta": {"updated_at": since()}}, "contains": {"school_type": ["GR", "GY"]}}))

        people = {}
        for res_name, api in (("student", m.students), ("employee", m.employees), ("guardian", m.guardians)):
            lst = call(A, res_name, "list", lambda api=api: api.list(limit=2), next_page_note)
            call(A, res_name, "list offset=1", lambda api=api: api.list(limit=2, offset=1))
            if lst and lst.result.data:
                call(A, res_name, "get", lambda api=api, lst=lst: api.get(id=lst.result.data[0].id))
            no = identity()
            created = call(A, res_name, "create", lambda api=api, no=no: api.create(
                identity_number=no, first_name="Sdk", last_name="Testsson", external={"source_id": "sdk"},
                address={"postal_address": "Storgatan 1", "postal_code": "111 22", "postal_city": "Stockholm", "country_code": "SWE", "municipality_code": "0180"}))
            if created:
                people[res_name] = created.result.id
                call(A, res_name, "update", lambda api=api, created=created, no=no: api.update(
                    id=created.result.id, identity_number=no, first_name="Sdk", last_name="Uppdaterad", email_address1="sdk@example.se"))
                call(A, res_name, "_search (meta + array contains)", lambda api=api, no=no: api.search(filter_={
                    "or_condition": False, "greater_than": {"meta": {"updated_at": since()}}, "contains": {"identity_number": [no]}}))

        group = None
        if school_id:
            groups = call(A, "group", "list", lambda: m.groups.list(limit=2), next_page_note)
            call(A, "group", "list offset=1", lambda: m.groups.list(limit=2, offset=1))
            if groups and groups.result.data:
                call(A, "group", "get", lambda: m.groups.get(id=groups.result.data[0].id))
            group = call(A, "group", "create", lambda: m.groups.create(school_id=school_id, title="SDK-gruppen %d" % random.randrange(10**6), types=["Class"]))
            if group:
                members = [people["student"]] if "student" in people else []
                call(A, "group", "update", lambda: m.groups.update(id=group.result.id, title=group.result.title, member_i_ds=members))
            call(A, "group", "_search (meta + array contains)", lambda: m.groups.search(filter_={
                "or_condition": False, "greater_than": {"meta": {"updated_at": since()}}, "contains": {"types": ["Class"]}}))

        sp = ep = ge = gu = None
        if school_id and "student" in people:
            sp = call(A, "student-placement", "create", lambda: m.student_placements.create(
                student_id=people["student"], school_id=school_id, school_type="GR", start_date=dt.date(2026, 8, 17)))
            lst = call(A, "student-placement", "list", lambda: m.student_placements.list(limit=2), next_page_note)
            call(A, "student-placement", "list offset=1", lambda: m.student_placements.list(limit=2, offset=1))
            if sp:
                call(A, "student-placement", "get", lambda: m.student_placements.get(id=sp.result.id))
                call(A, "student-placement", "update", lambda: m.student_placements.update(
                    id=sp.result.id, school_type="GR", start_date=dt.date(2026, 8, 17), end_date=dt.date(2027, 6, 10)))
                call(A, "student-placement", "archive", lambda: m.student_placements.archive(id=sp.result.id))
                call(A, "student-placement", "restore", lambda: m.student_placements.restore(id=sp.result.id))
            call(A, "student-placement", "_search (meta + array contains)", lambda: m.student_placements.search(filter_={
                "or_condition": False, "greater_than": {"meta": {"updated_at": since()}}, "contains": {"school_type": ["GR", "FS"]}}))
            ge = call(A, "grade-elementary", "create", lambda: m.grade_elementaries.create(
                student_id=people["student"], school_id=school_id, subject_code="MA", academic_year="2025/2026",
                term="HT", school_year="7", final_grade=False, is_ended=False))
            call(A, "grade-elementary", "list", lambda: m.grade_elementaries.list(limit=2))
            call(A, "grade-elementary", "list offset=1", lambda: m.grade_elementaries.list(limit=2, offset=1))
            if ge:
                call(A, "grade-elementary", "get", lambda: m.grade_elementaries.get(id=ge.result.id))
                call(A, "grade-elementary", "update", lambda: m.grade_elementaries.update(
                    id=ge.result.id, academic_year="2025/2026", term="VT",
                    school_year="7", final_grade=False, is_ended=False, grade="C"))
            gu = call(A, "grade-upper-secondary", "create", lambda: m.grade_upper_secondaries.create(
                student_id=people["student"], school_id=school_id, course_code="MATMAT01a", include_on_final_grade=True))
            call(A, "grade-upper-secondary", "list", lambda: m.grade_upper_secondaries.list(limit=2))
            call(A, "grade-upper-secondary", "list offset=1", lambda: m.grade_upper_secondaries.list(limit=2, offset=1))
            if gu:
                call(A, "grade-upper-secondary", "get", lambda: m.grade_upper_secondaries.get(id=gu.result.id))
                call(A, "grade-upper-secondary", "update", lambda: m.grade_upper_secondaries.update(id=gu.result.id, include_on_final_grade=False))
        if school_id and "employee" in people:
            ep = call(A, "employee-placement", "create", lambda: m.employee_placements.create(
                employee_id=people["employee"], school_id=school_id, start_date=dt.date(2026, 8, 1), roles=["Teacher", "MealPlanner"]))
            call(A, "employee-placement", "list", lambda: m.employee_placements.list(limit=2), next_page_note)
            call(A, "employee-placement", "list offset=1", lambda: m.employee_placements.list(limit=2, offset=1))
            if ep:
                call(A, "employee-placement", "get", lambda: m.employee_placements.get(id=ep.result.id))
                call(A, "employee-placement", "update", lambda: m.employee_placements.update(id=ep.result.id, start_date=dt.date(2026, 8, 1), employment_percent=80))
            call(A, "employee-placement", "_search (meta + array contains)", lambda: m.employee_placements.search(filter_={
                "or_condition": False, "greater_than": {"meta": {"updated_at": since()}}, "contains": {"roles": ["MealPlanner"]}}))

        # Deletes, children first; each leaves an audit event.
        for name, api, rec in (("grade-elementary", m.grade_elementaries, ge), ("grade-upper-secondary", m.grade_upper_secondaries, gu),
                               ("student-placement", m.student_placements, sp), ("employee-placement", m.employee_placements, ep),
                               ("group", m.groups, group)):
            if rec:
                call(A, name, "delete", lambda api=api, rec=rec: api.delete(id=rec.result.id))
        for name, api in (("student", m.students), ("employee", m.employees), ("guardian", m.guardians)):
            if name in people:
                call(A, name, "delete", lambda api=api, name=name: api.delete(id=people[name]))

        events = call(A, "audit-event", "list", lambda: m.audit_events.list(limit=2), next_page_note)
        call(A, "audit-event", "list offset=1", lambda: m.audit_events.list(limit=2, offset=1))
        if events and events.result.data:
            call(A, "audit-event", "get", lambda: m.audit_events.get(id=events.result.data[0].id))
        call(A, "audit-event", "_search (meta + array contains)", lambda: m.audit_events.search(filter_={
            "or_condition": False, "greater_than": {"meta": {"updated_at": since()}}, "contains": {"resource": ["Group", "Student"]}}))


def main():
    version = getattr(meitner, "__version__", None) or getattr(getattr(meitner, "_version", None), "__version__", "?")
    run("OAuth2", models.Security(option2=models.SecurityOption2(client_id=CLIENT_ID, client_secret=CLIENT_SECRET)))
    run("Client-ID/Secret", models.Security(option1=models.SecurityOption1(client_credentials=CLIENT_ID, client_secret=CLIENT_SECRET)))
    print("| client | version | auth | resource | operation | result |")
    print("|---|---|---|---|---|---|")
    for auth, resource, op, result in rows:
        print("| meitner (Python) | %s | %s | %s | %s | %s |" % (version, auth, resource, op, result.replace("|", "\\|")))
    failed = [r for r in rows if r[3].startswith("FAIL")]
    print()
    print("%d passed, %d failed" % (len(rows) - len(failed), len(failed)))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
