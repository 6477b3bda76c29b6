#!/usr/bin/env python3
"""A sync program a user would write on Delph1/python-ss12000client (module
ss12000client), to be examined by `skolkit exam` (compat/exam_clients.sh).

It mirrors interface B's organisations, persons, groups, placements and duties
into state.json in its working directory: every record on its first run, on
later runs what changed since (meta.modified.after) and what was deleted
(get_deleted_entities). The library sends what it is given and raises on every
HTTP error; what it leaves to its user this program does as a careful user
would, and no more: a token from the token endpoint (the library takes one), a
new token after a 401, a wait after a 429, a back-off after a 5xx, and the
pageToken walk (pageToken and limit only).

SS12K_PATCH_URLJOIN=1 replaces the library's urljoin, which drops the base
URL's path (/api/v1), with string concatenation.

Environment: the SKOLKIT_* variables skolkit exam sets. Exit 0 on success.
"""

import email.utils
import json
import os
import sys
import time
from datetime import timedelta

import requests

import ss12000client

if os.environ.get("SS12K_PATCH_URLJOIN"):
    ss12000client.urljoin = lambda base, path: base.rstrip("/") + path

TOKEN_URL = os.environ["SKOLKIT_TOKEN_URL"]
REGISTER_URL = os.environ["SKOLKIT_REGISTER_URL"]
CLIENT_ID = os.environ["SKOLKIT_CLIENT_ID"]
CLIENT_SECRET = os.environ["SKOLKIT_CLIENT_SECRET"]
STATE = "state.json"


def token():
    resp = requests.post(TOKEN_URL, data={"grant_type": "client_credentials", "client_id": CLIENT_ID,
                                          "client_secret": CLIENT_SECRET}, timeout=30)
    resp.raise_for_status()
    date = email.utils.parsedate_to_datetime(resp.headers["Date"])
    return resp.json()["access_token"], date


tok, started = token()
client = ss12000client.SS12000Client(REGISTER_URL, tok)


def call(fn, **params):
    """Calls a library method with the waits and retries the library leaves to its user."""
    renewed = False
    for attempt in range(8):
        try:
            return fn(**params)
        except requests.HTTPError as e:
            status = e.response.status_code
            if status == 401 and not renewed:
                renewed = True
                client.headers["Authorization"] = "Bearer " + token()[0]
                continue
            if status == 429:
                time.sleep(float(e.response.headers.get("Retry-After", "1")))
                continue
            if status >= 500 and attempt < 7:
                time.sleep(0.1 * 2 ** attempt)
                continue
            raise
    raise RuntimeError("gave up after 8 attempts")


RESOURCES = [("organisations", client.get_organisations, "Organisation"), ("persons", client.get_persons, "Person"),
             ("groups", client.get_groups, "Group"), ("placements", client.get_placements, "Placement"),
             ("duties", client.get_duties, "Duty")]

state = json.load(open(STATE)) if os.path.exists(STATE) else None
since = state["since"] if state else None
records = state["records"] if state else {}
for name, fn, _ in RESOURCES:
    params = {"limit": 100}
    if since:
        params["meta_modified_after"] = since
    page = call(fn, **params)
    got = {r["id"]: r["meta"]["modified"] for r in page["data"]}
    while page.get("pageToken"):
        page = call(fn, page_token=page["pageToken"], limit=100)
        got.update({r["id"]: r["meta"]["modified"] for r in page["data"]})
    if since:
        records.setdefault(name, {}).update(got)
    else:
        records[name] = got
if since:
    gone = call(client.get_deleted_entities, entities=[e for _, _, e in RESOURCES], meta_modified_after=since)
    for name, _, _ in RESOURCES:
        for i in gone.get("data", {}).get(name, []):
            records.get(name, {}).pop(i, None)
json.dump({"since": (started - timedelta(seconds=1)).isoformat().replace("+00:00", "Z"), "records": records}, open(STATE, "w"))
print("synced %s" % {k: len(v) for k, v in records.items()})
