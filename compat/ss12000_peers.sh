#!/usr/bin/env bash
# Runs three third-party SS 12000 tools against a running `skolkit serve`
# (interface B, /api/v1), the way a user would:
#   github.com/Delph1/node-ss12000client  (Node.js client library)
#   github.com/Delph1/python-ss12000client (Python client library, every
#                                          public method of SS12000Client)
#   github.com/Delph1/ss12k_validator     (scenario validator; its Python
#                                          scenario engine is driven directly,
#                                          without its FastAPI web UI)
# (compat/ss12000_server_peers.sh runs the other direction: a third-party
# SS 12000 server under `skolkit conformance --profile ss12000`.)
# Neither tool is part of skolkit or copied into this repository. When a tool
# is not found at the path below, its part is SKIPPED with a message and the
# script exits 0, so CI (which cannot fetch them) is unaffected.
# docs/compatibility.md ("SS 12000 clients and validators") has the commands
# and the recorded results.
#
# Environment:
#   SKOLKIT_URL            mock root URL (default http://127.0.0.1:18090)
#   SKOLKIT_CLIENT_ID      (default skolkit-client)
#   SKOLKIT_CLIENT_SECRET  (default skolkit-secret)
#   SS12K_NODE_CLIENT_DIR  work tree of node-ss12000client, with node-fetch@2
#                          installed in it (default /tmp/peers/node-ss12000client)
#   SS12K_VALIDATOR_DIR    work tree of ss12k_validator (default /tmp/peers/ss12k_validator)
#   SS12K_PY_CLIENT_DIR    work tree of python-ss12000client (default
#                          /tmp/peers/python-ss12000client); needs a python3
#                          with requests (PYTHON, default python3)
#
# Exit status: 0 always when a tool is skipped or ran; the per-call results
# are printed (pass / FAIL lines), they are findings to read, not a gate.
set -u
URL=${SKOLKIT_URL:-http://127.0.0.1:18090}
CID=${SKOLKIT_CLIENT_ID:-skolkit-client}
CSEC=${SKOLKIT_CLIENT_SECRET:-skolkit-secret}
NODE_DIR=${SS12K_NODE_CLIENT_DIR:-/tmp/peers/node-ss12000client}
VAL_DIR=${SS12K_VALIDATOR_DIR:-/tmp/peers/ss12k_validator}
PY_DIR=${SS12K_PY_CLIENT_DIR:-/tmp/peers/python-ss12000client}
PY=${PYTHON:-python3}

have_node=0; have_val=0; have_py=0
[ -f "$NODE_DIR/ss12000-client.js" ] && command -v node >/dev/null && have_node=1
[ -f "$VAL_DIR/validators/scenario_executor.py" ] && command -v python3 >/dev/null && have_val=1
py_missing=
if [ ! -f "$PY_DIR/ss12000client.py" ]; then py_missing="not present at $PY_DIR (set SS12K_PY_CLIENT_DIR)"
elif ! "$PY" -c 'import requests' 2>/dev/null; then py_missing="needs $PY with requests (apt-get install python3-requests, or pip install requests; or set PYTHON)"
else have_py=1; fi
if [ $have_node = 0 ] && [ $have_val = 0 ] && [ $have_py = 0 ]; then
  echo "SKIP: SS 12000 peers not present (looked for $NODE_DIR, $VAL_DIR and $PY_DIR; set SS12K_NODE_CLIENT_DIR / SS12K_VALIDATOR_DIR / SS12K_PY_CLIENT_DIR)"
  exit 0
fi
TOKEN=$(curl -fsS -X POST "$URL/oauth/token" -d grant_type=client_credentials \
  -d client_id="$CID" -d client_secret="$CSEC" 2>/dev/null |
  python3 -c 'import sys,json;print(json.load(sys.stdin)["access_token"])' 2>/dev/null)
if [ -z "$TOKEN" ]; then
  echo "SKIP: no skolkit serve answering at $URL (start one: skolkit serve --addr 127.0.0.1:18090)"
  exit 0
fi
TMP=$(mktemp -d); trap 'rm -rf "$TMP"' EXIT

if [ $have_node = 1 ]; then
cat > "$TMP/node_run.js" <<'EOF'
const C = require(process.env.SS12K_NODE_CLIENT_DIR + '/ss12000-client.js');
const [base, token] = process.argv.slice(2);
const c = new C(base, token);
console.error = () => {};  // the client logs every error itself; we print our own line
const out = [];
// The client dereferences nested filter objects unconditionally
// (params.startDate.onOrBefore, params.meta.created.before, ...), so pass empty ones.
const R = () => ({ onOrBefore: undefined, onOrAfter: undefined });
const P = (o) => Object.assign({ startDate: R(), endDate: R(), startTime: R(), endTime: R(), registeredDate: R(),
  meta: { created: {}, modified: {} }, identifier: {}, relationship: { entity: {}, startDate: R(), endDate: R() } }, o);
async function t(name, fn) {
  try { const r = await fn(); out.push(['pass', name]); return r; }
  catch (e) { out.push(['FAIL', name, e.message.slice(0, 300)]); }
}
(async () => {
  const kinds = [
    ['Organisations','getOrganisationById','lookupOrganisations',1], ['Persons','getPersonById','lookupPersons',2],
    ['Placements','getPlacementById','lookupPlacements',2], ['Duties','getDutyById','lookupDuties',2],
    ['Groups','getGroupById','lookupGroups',2], ['Programmes','getProgrammeById','lookupProgrammes',1],
    ['StudyPlans','getStudyPlanById','lookupStudyPlans',2], ['Syllabuses','getSyllabusById','lookupSyllabuses',1],
    ['SchoolUnitOfferings','getSchoolUnitOfferingById','lookupSchoolUnitOfferings',1],
    ['Activities','getActivityById','lookupActivities',2], ['CalendarEvents','getCalendarEventById','lookupCalendarEvents',1],
    ['Attendances','getAttendanceById','lookupAttendances',1], ['AttendanceEvents','getAttendanceEventById','lookupAttendanceEvents',2],
    ['AttendanceSchedules','getAttendanceScheduleById','lookupAttendanceSchedules',1], ['Grades','getGradeById','lookupGrades',1],
    ['Absences','getAbsenceById','lookupAbsences',1], ['Resources','getResourceById','lookupResources',1],
    ['Rooms','getRoomById','lookupRooms',1],
  ];
  for (const [k, byId, lookup, argc] of kinds) {
    const extra = k == 'CalendarEvents' ? { startTime: { onOrAfter: '2020-01-01T00:00:00Z', onOrBefore: '2030-01-01T00:00:00Z' } } : {};
    const p1 = await t(`get${k}({limit:2})`, () => c['get' + k](P(Object.assign({ limit: 2 }, extra))));
    if (p1 && p1.pageToken) await t(`get${k}({pageToken}) page 2`, () => c['get' + k](P(Object.assign({ pageToken: p1.pageToken }, extra))));
    const id = p1 && p1.data && p1.data[0] && p1.data[0].id;
    if (id) {
      await t(`${byId}(id)`, () => c[byId](id));
      await t(`${lookup}({ids:[id]})`, () => typeof c[lookup] != 'function' ? Promise.reject(new Error(lookup + ' is not defined on the client class'))
        : argc == 2 ? c[lookup]({ ids: [id] }, [], false) : c[lookup]({ ids: [id] }, false));
    }
  }
  await t('getAggregatedAttendances({startDate,endDate})', () => c.getAggregatedAttendances(P({ startDate: '2024-01-01', endDate: '2026-12-31' })));
  await t('getDeletedEntities({after})', () => c.getDeletedEntities(P({ after: '2020-01-01T00:00:00Z' })));
  await t('getSubscriptions()', () => c.getSubscriptions({}));
  const sub = await t('createSubscription', () => c.createSubscription({ name: 'peer-test', target: 'http://127.0.0.1:9/hook', resourceTypes: [{ resource: 'Person' }] }));
  if (sub && sub.id) {
    await t('getSubscriptionById', () => c.getSubscriptionById(sub.id));
    await t('updateSubscription (renew)', () => c.updateSubscription(sub.id, { expires: '2026-12-01T00:00:00Z' }));
    await t('deleteSubscription', () => c.deleteSubscription(sub.id));
  }
  await t('postLog', () => c.postLog({ messageType: 'Info', severityLevel: 'Info', resourceType: 'Person', message: 'peer test' }));
  await t('postStatistics', () => c.postStatistics({ resourceType: 'Person', newCount: 1, updatedCount: 0, deletedCount: 0, timeOfOccurance: '2025-01-01T00:00:00Z' }));
  for (const r of out) console.log(r.join(' | '));
  console.log('summary', out.filter(r => r[0] == 'pass').length, 'pass', out.filter(r => r[0] != 'pass').length, 'FAIL');
})();
EOF
  echo "== node-ss12000client ($(git -C "$NODE_DIR" rev-parse --short HEAD 2>/dev/null || echo '?'))"
  SS12K_NODE_CLIENT_DIR="$NODE_DIR" node "$TMP/node_run.js" "$URL/api/v1" "$TOKEN" 2>&1 | grep -v '^Varning: Base URL'
else
  echo "SKIP: node-ss12000client not present at $NODE_DIR (set SS12K_NODE_CLIENT_DIR)"
fi

if [ $have_val = 1 ]; then
cat > "$TMP/validator_run.py" <<'EOF'
import os, sys, json, yaml, logging
vdir = os.environ["SS12K_VALIDATOR_DIR"]; sys.path.insert(0, vdir); os.chdir(vdir)
logging.disable(logging.CRITICAL)
from validators.scenario_executor import ScenarioRunner
base, token = sys.argv[1], sys.argv[2]
sc = yaml.safe_load(open("scenarios.yaml"))["scenarios"]
# the same headers the web UI sends: the user's Authorization header plus "Limit"
r = ScenarioRunner(api_base_url=base, version="2022", custom_headers={"Authorization": "Bearer " + token, "Limit": "10"})
res = r.run_scenarios([dict(v, id=k) for k, v in sc.items()])
for s in res["scenarios"].values():
    print(s["scenario_id"], s["status"])
    for st in s["steps"]:
        if st["status"] != "pending":
            print("   ", st["status"], st["http_status_code"], st["method"], st["endpoint"], str(st["error_details"] or "")[:200])
print("overall", res["overall_status"], "%d/%d scenarios passed" % (res["passed_scenarios"], res["total_scenarios"]))
EOF
  echo "== ss12k_validator ($(git -C "$VAL_DIR" rev-parse --short HEAD 2>/dev/null || echo '?'))"
  SS12K_VALIDATOR_DIR="$VAL_DIR" python3 "$TMP/validator_run.py" "$URL/api/v1" "$TOKEN" 2>&1
else
  echo "SKIP: ss12k_validator not present at $VAL_DIR (set SS12K_VALIDATOR_DIR)"
fi
if [ $have_py = 1 ]; then
cat > "$TMP/py_client_run.py" <<'EOF'
# Drives every public method of Delph1/python-ss12000client against a running
# `skolkit serve` (interface B), the way its README shows, and prints one line
# per call: pass | FAIL, the method, and for a failure the HTTP status and
# the first part of the error body.
import os, sys, io, contextlib, inspect
sys.path.insert(0, os.environ["SS12K_PY_CLIENT_DIR"])
import ss12000client
from ss12000client import SS12000Client

base, token = sys.argv[1], sys.argv[2]
out = []

def call(name, fn):
    buf = io.StringIO()
    try:
        with contextlib.redirect_stdout(buf):  # the client prints every error itself
            r = fn()
        out.append(("pass", name, ""))
        return r
    except Exception as e:
        resp = getattr(e, "response", None)
        why = "%d %s" % (resp.status_code, resp.text[:220].replace("\n", " ")) if resp is not None else "%s: %s" % (type(e).__name__, str(e)[:220])
        out.append(("FAIL", name, why))
        return None

# The client joins every path with urljoin(base_url, "/organisations"), which
# drops the base URL's path ("/api/v1", or the README's "/v2.0"): first one
# call as the client is, then the rest with that join fixed (string
# concatenation) so that the other methods can be judged at all.
with contextlib.redirect_stdout(io.StringIO()):
    c = SS12000Client(base, token)
call("get_organisations(limit=2) [client as published]", lambda: c.get_organisations(limit=2))
ss12000client.urljoin = lambda b, p: b.rstrip("/") + p

def first_id(page):
    if isinstance(page, dict) and page.get("data"):
        return page["data"][0].get("id")
    return None

kinds = [  # list method, by-id method, lookup method, list kwargs
    ("organisations", "organisation", {}), ("persons", "person", {}), ("placements", "placement", {}),
    ("duties", "duty", {}), ("groups", "group", {}), ("programmes", "programme", {}),
    ("study_plans", "study_plan", {}), ("syllabuses", "syllabus", {}),
    ("school_unit_offerings", "school_unit_offering", {}), ("activities", "activity", {}),
    ("calendar_events", "calendar_event", {"start_time_on_or_after": "2020-01-01T00:00:00Z", "start_time_on_or_before": "2030-01-01T00:00:00Z"}),
    ("attendances", "attendance", {}), ("attendance_events", "attendance_event", {}),
    ("attendance_schedules", "attendance_schedule", {}), ("grades", "grade", {}),
    ("aggregated_attendances", "aggregated_attendance", {"start_date": "2020-01-01", "end_date": "2030-12-31"}),
    ("resources", "resource", {}), ("rooms", "room", {}),
]
called = set()
for plural, single, extra in kinds:
    lst = "get_" + plural
    called.update([lst, "lookup_" + plural, "get_%s_by_id" % single])
    page = call("%s(limit=2)" % lst, lambda: getattr(c, lst)(limit=2, **extra))
    if isinstance(page, dict) and page.get("pageToken"):
        call("%s(page_token) page 2" % lst, lambda: getattr(c, lst)(page_token=page["pageToken"], **extra))
    rid = first_id(page)
    if rid is None:
        # a resource whose list the client cannot read: try its by-id and
        # lookup with an id from another source (skolkit's state export)
        # (the list at the document's path, read without the client)
        docpath = {"attendance_schedules": "/attendanceSchedule"}.get(plural)
        if docpath:
            import requests
            r = requests.get(base.rstrip("/") + docpath, params={"limit": 1}, headers={"Authorization": "Bearer " + token})
            rid = first_id(r.json()) if r.ok else None
        elif plural == "aggregated_attendances":
            rid = "00000000-0000-4000-8000-000000000001"  # the document has no by-id or lookup here: any id shows it
    if rid:
        call("get_%s_by_id(id)" % single, lambda: getattr(c, "get_%s_by_id" % single)(rid))
        call("lookup_%s(ids=[id])" % plural, lambda: getattr(c, "lookup_" + plural)(ids=[rid]))
    else:
        out.append(("skip", "get_%s_by_id / lookup_%s" % (single, plural), "no id to use"))

# the README's own examples, and the optional arguments of the by-id and
# lookup methods (expand, expandReferenceNames)
call("README: get_organisation_by_id(id, expand_reference_names=True)", lambda: c.get_organisation_by_id(first_id(c.get_organisations(limit=2)), expand_reference_names=True))
call("README: get_persons(limit=2, expand=['duties'])", lambda: c.get_persons(limit=2, expand=["duties"]))
pid = first_id(c.get_persons(limit=1))
call("README: get_person_by_id(id, expand=['duties','responsibleFor'], expand_reference_names=True)", lambda: c.get_person_by_id(pid, expand=["duties", "responsibleFor"], expand_reference_names=True))
call("lookup_persons(ids, expand=['duties'], expand_reference_names=True)", lambda: c.lookup_persons(ids=[pid], expand=["duties"], expand_reference_names=True))
plid = first_id(c.get_placements(limit=1))
call("get_placement_by_id(id, expand=['child','owners'], expand_reference_names=True)", lambda: c.get_placement_by_id(plid, expand=["child", "owners"], expand_reference_names=True))
gid = first_id(c.get_groups(limit=1))
call("get_group_by_id(id, expand=['assignmentRoles'], expand_reference_names=True)", lambda: c.get_group_by_id(gid, expand=["assignmentRoles"], expand_reference_names=True))
aid = first_id(c.get_activities(limit=1))
call("get_activity_by_id(id, expand=['groups','teachers','syllabus'])", lambda: c.get_activity_by_id(aid, expand=["groups", "teachers", "syllabus"]))

# extra selection forms of the lookups
org = first_id(c.get_organisations(limit=50, type=["Skolenhet"]))
per = c.get_persons(limit=1)
if per and per.get("data") and per["data"][0].get("civicNo"):
    call("lookup_persons(civic_nos=[...])", lambda: c.lookup_persons(civic_nos=[per["data"][0]["civicNo"]["value"]]))
sus = c.get_organisations(limit=50)
codes = [o["schoolUnitCode"] for o in (sus or {}).get("data", []) if o.get("schoolUnitCode")]
if codes:
    call("lookup_organisations(school_unit_codes=[...])", lambda: c.lookup_organisations(school_unit_codes=codes[:1]))

called.update(["get_subscriptions", "create_subscription", "get_subscription_by_id", "update_subscription",
               "delete_subscription", "get_deleted_entities", "get_log", "get_statistics", "delete_attendance"])
call("get_subscriptions()", lambda: c.get_subscriptions())
sub = call("create_subscription(name, target, ['Person'])", lambda: c.create_subscription("peer-test", "http://127.0.0.1:9/hook", ["Person"]))
if sub and sub.get("id"):
    call("get_subscription_by_id(id)", lambda: c.get_subscription_by_id(sub["id"]))
    call("update_subscription(id, expires)", lambda: c.update_subscription(sub["id"], "2099-12-01T00:00:00Z"))
    call("delete_subscription(id)", lambda: c.delete_subscription(sub["id"]))
call("get_deleted_entities(['Person'], after)", lambda: c.get_deleted_entities(["Person"], "2020-01-01T00:00:00Z"))
call("get_log()", lambda: c.get_log())
call("get_statistics()", lambda: c.get_statistics())
att = first_id(c.get_attendances(limit=1)) if hasattr(c, "get_attendances") else None
att = att or os.environ.get("SS12K_ID_ATTENDANCES")
if att:
    call("delete_attendance(id)", lambda: c.delete_attendance(att))

public = {n for n, _ in inspect.getmembers(SS12000Client, inspect.isfunction) if not n.startswith("_")}
for n in sorted(public - called):
    out.append(("skip", n, "not called by this driver"))
for r in out:
    print(" | ".join(x for x in r if x != ""))
print("summary: %d pass, %d FAIL, %d skip; %d public methods" % (
    sum(r[0] == "pass" for r in out), sum(r[0] == "FAIL" for r in out), sum(r[0] == "skip" for r in out), len(public)))
EOF
  echo "== python-ss12000client ($(git -C "$PY_DIR" rev-parse --short HEAD 2>/dev/null || echo '?'))"
  SS12K_PY_CLIENT_DIR="$PY_DIR" "$PY" "$TMP/py_client_run.py" "$URL/api/v1" "$TOKEN" 2>&1
else
  echo "SKIP: python-ss12000client $py_missing"
fi
exit 0
