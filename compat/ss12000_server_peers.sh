#!/usr/bin/env bash
# Runs a third-party SS 12000 server under the conformance runner, the other
# direction of compat/ss12000_peers.sh:
#   github.com/Delph1/fastapi-ss12000-server  (FastAPI + SQLAlchemy)
# judged by `skolkit conformance --profile ss12000`, the SS 12000 2.1.0
# document alone. The server is not part of skolkit or copied into this
# repository: a scratch copy of its work tree is made, the smallest changes
# that let it start at all are applied to the copy (its database.py does not
# import as published; each change is listed below and in
# docs/compatibility.md), it is filled with a few records through its own
# ORM models (its database.sql does not match its models), served by uvicorn
# on SQLite, and the runner is sent against it. The server has no
# authentication and no token endpoint, so the runner gets a bearer token
# with --token (SKOLKIT_TOKEN), as for any SS 12000 server whose tokens come
# from elsewhere. When the server or its Python packages are absent, the run
# is SKIPPED with a message and the script exits 0, so CI is unaffected.
#
# Environment:
#   SS12K_SERVER_DIR  work tree of fastapi-ss12000-server (default
#                     /tmp/peers/fastapi-ss12000-server)
#   PYTHON            a python3 with fastapi, uvicorn and sqlalchemy (default
#                     /usr/bin/python3: Debian's python3-fastapi,
#                     python3-uvicorn, python3-sqlalchemy)
#   SKOLKIT           the skolkit command (default: go run ./cmd/skolkit)
#   PORT              where the server listens (default 18095)
#   REPORT            also write the runner's JSON report there
#
# Exit status: 0 when skipped or run; the runner's findings are printed, they
# are findings to read, not a gate.
set -u
SRV=${SS12K_SERVER_DIR:-/tmp/peers/fastapi-ss12000-server}
PY=${PYTHON:-/usr/bin/python3}
PORT=${PORT:-18095}
if [ ! -f "$SRV/main.py" ] || [ ! -f "$SRV/database.py" ]; then
  echo "SKIP: fastapi-ss12000-server not present at $SRV (set SS12K_SERVER_DIR)"
  exit 0
fi
if ! "$PY" -c 'import fastapi, uvicorn, sqlalchemy' 2>/dev/null; then
  echo "SKIP: $PY lacks fastapi, uvicorn or sqlalchemy (apt-get install python3-fastapi python3-uvicorn python3-sqlalchemy, or set PYTHON)"
  exit 0
fi
TMP=$(mktemp -d)
PID=
cleanup() { [ -n "$PID" ] && kill "$PID" 2>/dev/null; rm -rf "$TMP"; }
trap cleanup EXIT
cp -r "$SRV" "$TMP/server"
rev=$(git -C "$SRV" rev-parse --short HEAD 2>/dev/null || echo '?')

cat > "$TMP/patch.py" <<'EOF'
# The smallest changes that make fastapi-ss12000-server (aaed2d9) start at
# all; each is a bug in the server's database.py, none changes what the API
# answers. Applied to a scratch copy, never to the peer's repository.
import re, sys
p = sys.argv[1] + "/database.py"
s = open(p).read()
# 1. Column(date) passes Python's datetime.date, not SQLAlchemy's Date type.
s = s.replace("Column(date)", "Column(Date)").replace(
    "from sqlalchemy import create_engine, Column, String, DateTime",
    "from sqlalchemy import create_engine, Column, String, Date, DateTime", 1)
# 2. Person.placements_child names Placement.child_id; the column is person_id.
s = s.replace('foreign_keys="Placement.child_id"', 'foreign_keys="Placement.person_id"')
# 3. back_populates naming properties that do not exist on the other class.
for cls, attr in [("StudyPlan", "studyplans"), ("SchoolUnitOffering", "school_unit_offerings"),
                  ("Attendance", "attendance"), ("Attendance", "attendance_records"),
                  ("Grade", "grades"), ("AggregatedAttendance", "aggregated_attendance")]:
    s = re.sub(r'(class %s\(Base\):.*?relationship\([^)]*?), back_populates="%s"\)' % (cls, attr),
               r"\1)", s, count=1, flags=re.S)
# 4. Attendance.calendar_event has no foreign key to join on.
s = s.replace('    attendance_event_id = Column(String(36), ForeignKey("attendanceEvents.id"))',
              '    attendance_event_id = Column(String(36), ForeignKey("attendanceEvents.id"))\n'
              '    calendar_event_id = Column(String(36), ForeignKey("calendarEvents.id"))', 1)
open(p, "w").write(s)
EOF
cat > "$TMP/seed.py" <<'EOF'
# Seeds fastapi-ss12000-server's database through its own ORM models
# (its database.sql does not match database.py: other columns, non-UUID ids).
import os, sys, uuid
from datetime import date, datetime
sys.path.insert(0, os.environ["SS12K_SERVER_DIR"])
import database as d
U = lambda: str(uuid.uuid4())
s = d.SessionLocal()
org1, org2 = U(), U()
s.add_all([
  d.Organisation(id=org1, name="Exempels kommun", type="Kommun", municipality_code="1480", organisation_code="K-1480", start_date=date(2020,1,1)),
  d.Organisation(id=org2, name="Exempelskolan", parent_id=org1, type="Skola", school_unit_code="12345678", school_types="Grundskola", start_date=date(2021,8,15)),
])
p = [U() for _ in range(3)]
s.add_all([
  d.Person(id=p[0], display_name="Maria Andersson", given_name="Maria", family_name="Andersson", civic_no="200801012384", securityMarking="Ingen"),
  d.Person(id=p[1], display_name="Johan Karlsson", given_name="Johan", family_name="Karlsson", civic_no="198001012390", securityMarking="Ingen"),
  d.Person(id=p[2], display_name="Fatima Ahmed", given_name="Fatima", family_name="Ahmed", civic_no="198502022391", securityMarking="Ingen"),
])
g = U()
s.add(d.Group(id=g, display_name="Klass 7A", group_type="ClassGroup", school_types="Grundskola", organisation_id=org2, start_date=date(2024,8,15)))
s.add(d.GroupMembership(id=U(), person_id=p[0], group_id=g, start_date=date(2024,8,15)))
s.add(d.Placement(id=U(), organisation_id=org2, group_id=g, person_id=p[0], owner_id=p[2], start_date=date(2024,8,15)))
duty = U()
s.add(d.Duty(id=duty, person_id=p[1], organisation_id=org2, duty_role="Teacher", start_date=date(2024,8,1)))
s.add(d.ResponsibleFor(id=U(), responsible_id=p[2], child_id=p[0], start_date=date(2008,1,1)))
s.add(d.Programme(id=U(), name="Teknikprogrammet", code="TE", school_types="Gymnasium"))
s.add(d.StudyPlan(id=U(), title="Studieplan Maria", student_id=p[0], start_date=date(2024,8,15)))
syl = U()
s.add(d.Syllabus(id=syl, subject_name="Matematik", subject_code="MA", start_date=date(2024,1,1)))
s.add(d.SchoolUnitOffering(id=U(), name="Matematik 7", code="MA7", offered_at_id=org2, start_date=date(2024,8,15)))
act = U()
a = d.Activity(id=act, display_name="Matematik 7A", organisation_id=org2, syllabus_id=syl, start_date=date(2024,8,15))
s.add(a); s.flush()
a.groups.append(s.get(d.Group, g)); a.teachers.append(s.get(d.Duty, duty))
ce = U()
s.add(d.CalendarEvent(id=ce, name="Lektion", start_time=datetime(2025,9,1,8,30), end_time=datetime(2025,9,1,9,30), activity_id=act))
ae = U()
s.add(d.AttendanceEvent(id=ae, name="Närvarande"))
s.add(d.Attendance(id=U(), person_id=p[0], activity_id=act, attendance_event_id=ae))
s.add(d.AttendanceSchedule(id=U(), name="Schema 2025"))
s.add(d.Grade(id=U(), person_id=p[0], grade_value="A"))
s.add(d.AggregatedAttendance(id=U(), person_id=p[0], attendance_percentage=98.5))
s.add(d.Resource(id=U(), name="Projektor"))
s.add(d.Room(id=U(), name="Sal 101"))
s.commit()
print("seeded", org1, org2, *p)
EOF
"$PY" "$TMP/patch.py" "$TMP/server" || { echo "FAIL: the start-up changes no longer apply to $SRV ($rev): read the server's database.py again"; exit 0; }
# check_same_thread=false: FastAPI answers from a thread pool, SQLite
# refuses a connection used across threads otherwise (an artefact of using
# SQLite instead of the MySQL the server is written for).
export DATABASE_URL="sqlite:///$TMP/ss12000.db?check_same_thread=false"
(cd "$TMP/server" && SS12K_SERVER_DIR="$TMP/server" "$PY" "$TMP/seed.py" 2>/dev/null) || { echo "FAIL: seeding the server's database failed"; exit 0; }
(cd "$TMP/server" && exec "$PY" -m uvicorn main:app --host 127.0.0.1 --port "$PORT" >"$TMP/uvicorn.log" 2>&1) &
PID=$!
echo "== fastapi-ss12000-server ($rev) on http://127.0.0.1:$PORT, judged by --profile ss12000"
args=(conformance --profile ss12000 --register-url "http://127.0.0.1:$PORT" --wait-for 20s -q)
[ -n "${REPORT:-}" ] && args+=(--report "json=$REPORT")
if [ -n "${SKOLKIT:-}" ]; then
  SKOLKIT_TOKEN=any-token-the-server-ignores $SKOLKIT "${args[@]}"
else
  SKOLKIT_TOKEN=any-token-the-server-ignores go run ./cmd/skolkit "${args[@]}"
fi
echo "runner exit status $? (1: checks failed; the findings are above)"
echo "-- the server's own errors (uvicorn log, one line per kind):"
grep -E '^[a-z_.]+\.(exc|errors|error_wrappers)\.[A-Za-z]+' "$TMP/uvicorn.log" | sort | uniq -c | sort -rn | cut -c1-220
exit 0
