#!/usr/bin/env bash
# Runs two third-party SS 12000 tools against a running `skolkit serve`
# (interface B, /api/v1), the way a user would:
#   github.com/Delph1/node-ss12000client  (Node.js client library)
#   github.com/Delph1/ss12k_validator     (scenario validator; its Python
#                                          scenario engine is driven directly,
#                                          without its FastAPI web UI)
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
#
# Exit status: 0 always when a tool is skipped or ran; the per-call results
# are printed (pass / FAIL lines), they are findings to read, not a gate.
set -u
URL=${SKOLKIT_URL:-http://127.0.0.1:18090}
CID=${SKOLKIT_CLIENT_ID:-skolkit-client}
CSEC=${SKOLKIT_CLIENT_SECRET:-skolkit-secret}
NODE_DIR=${SS12K_NODE_CLIENT_DIR:-/tmp/peers/node-ss12000client}
VAL_DIR=${SS12K_VALIDATOR_DIR:-/tmp/peers/ss12k_validator}

have_node=0; have_val=0
[ -f "$NODE_DIR/ss12000-client.js" ] && command -v node >/dev/null && have_node=1
[ -f "$VAL_DIR/validators/scenario_executor.py" ] && command -v python3 >/dev/null && have_val=1
if [ $have_node = 0 ] && [ $have_val = 0 ]; then
  echo "SKIP: SS 12000 peers not present (looked for $NODE_DIR and $VAL_DIR; set SS12K_NODE_CLIENT_DIR / SS12K_VALIDATOR_DIR)"
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
exit 0
