#!/usr/bin/env python3
"""A sync program a user would write on the vendor's generated Python SDK
(github.com/meitner-se/api-client-python, package meitner), to be examined by
`skolkit exam` (compat/exam_clients.sh).

It mirrors interface A's schools, students, guardians, employees, groups and
placements into state.json in its working directory, the way the SDK's README
shows: a list page, then res.next() until it returns None. On its first run it
lists; on later runs it searches for what was updated since
(greater_than.meta.updated_at, the vendor's usual sync query) and for the
deletions since (the audit events). The SDK authenticates with OAuth 2.0
client credentials itself; its retries are switched on with the SDK's own
RetryConfig (which retries 429 and 5xx).

Environment: the SKOLKIT_* variables skolkit exam sets. Exit 0 on success.
"""

import email.utils
import json
import os
import urllib.request
from datetime import timedelta

from meitner import Meitner, models
from meitner.utils import BackoffStrategy, RetryConfig

BASE_URL = os.environ["SKOLKIT_BASE_URL"]
TOKEN_URL = os.environ["SKOLKIT_TOKEN_URL"]
CLIENT_ID = os.environ["SKOLKIT_CLIENT_ID"]
CLIENT_SECRET = os.environ["SKOLKIT_CLIENT_SECRET"]
STATE = "state.json"


def server_now():
    """The server's time (its Date header): the bookmark of the next run."""
    req = urllib.request.Request(TOKEN_URL, method="POST", data=b"grant_type=client_credentials",
                                 headers={"Content-Type": "application/x-www-form-urlencoded"})
    try:
        resp = urllib.request.urlopen(req, timeout=30)
    except urllib.error.HTTPError as e:
        resp = e
    return email.utils.parsedate_to_datetime(resp.headers["Date"])


started = server_now()
state = json.load(open(STATE)) if os.path.exists(STATE) else None
since = state["since"] if state else None
records = state["records"] if state else {}
security = models.Security(option2=models.SecurityOption2(client_id=CLIENT_ID, client_secret=CLIENT_SECRET))
retry = RetryConfig("backoff", BackoffStrategy(100, 2000, 2.0, 60000), True)
with Meitner(security=security, server_url=BASE_URL, retry_config=retry) as m:
    for name, api in [("school", m.schools), ("student", m.students), ("guardian", m.guardians), ("employee", m.employees),
                      ("group", m.groups), ("student-placement", m.student_placements), ("employee-placement", m.employee_placements)]:
        if since:
            res = api.search(filter_={"or_condition": False, "greater_than": {"meta": {"updated_at": since}}}, limit=100)
        else:
            res = api.list(limit=100)
        got = {}
        while res is not None:
            for r in res.result.data:
                got[r.id] = str(r.meta.updated_at or r.meta.created_at)
            res = res.next()
        if since:
            records.setdefault(name, {}).update(got)
        else:
            records[name] = got
    if since:
        res = m.audit_events.search(filter_={"or_condition": False, "greater_than": {"timestamp": since}}, limit=100)
        kinds = {"School": "school", "Student": "student", "Guardian": "guardian", "Employee": "employee", "Group": "group",
                 "StudentPlacement": "student-placement", "EmployeePlacement": "employee-placement"}
        while res is not None:
            for e in res.result.data:
                records.get(kinds.get(str(getattr(e.resource, "value", e.resource)), ""), {}).pop(e.resource_id, None)
            res = res.next()
json.dump({"since": (started - timedelta(seconds=1)).isoformat().replace("+00:00", "Z"), "records": records}, open(STATE, "w"))
print("synced %s" % {k: len(v) for k, v in records.items()})
