// A sync program a user would write on Delph1/node-ss12000client, to be
// examined by `skolkit exam` (compat/exam_clients.sh).
//
// It mirrors interface B's organisations, persons, groups, placements and
// duties into state.json in its working directory: every record on its first
// run, on later runs what changed since (meta.modified.after) and what was
// deleted (getDeletedEntities). The library sends what it is given and throws
// on every HTTP error (its message holds the status; it does not give the
// answer's headers); what it leaves to its user this program does as a careful
// user would, and no more: a token from the token endpoint, a new token after
// a 401, a second's wait after a 429, a back-off after a 5xx, and the pageToken
// walk (pageToken and limit only). getPersons reads params.identifier.value
// and the like whatever is asked, so every call passes the nested objects
// empty (without them the library throws a TypeError before any request).
//
// Usage: node node_ss12000_sync.js LIBRARY_DIR   (the SKOLKIT_* variables set)
const fs = require('fs');
const path = require('path');
const SS12000Client = require(path.resolve(process.argv[2], 'ss12000-client.js'));

const env = process.env;
const STATE = 'state.json';

async function token() {
  const resp = await fetch(env.SKOLKIT_TOKEN_URL, {
    method: 'POST',
    headers: {'Content-Type': 'application/x-www-form-urlencoded'},
    body: new URLSearchParams({grant_type: 'client_credentials', client_id: env.SKOLKIT_CLIENT_ID, client_secret: env.SKOLKIT_CLIENT_SECRET}),
  });
  if (!resp.ok) throw new Error(`token: ${resp.status}`);
  return {token: (await resp.json()).access_token, date: new Date(resp.headers.get('date'))};
}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

async function main() {
  const first = await token();
  const client = new SS12000Client(env.SKOLKIT_REGISTER_URL, first.token);
  const call = async (fn, params) => {
    let renewed = false;
    for (let attempt = 0; attempt < 8; attempt++) {
      try {
        return await fn.call(client, params);
      } catch (e) {
        const m = /API call failed: (\d+)/.exec(e.message);
        const status = m ? Number(m[1]) : 0;
        if (status === 401 && !renewed) {
          renewed = true;
          client.headers.Authorization = `Bearer ${(await token()).token}`;
          continue;
        }
        if (status === 429) { await sleep(1000); continue; }
        if (status >= 500 && attempt < 7) { await sleep(100 * 2 ** attempt); continue; }
        throw e;
      }
    }
    throw new Error('gave up after 8 attempts');
  };
  // The nested objects getPersons and its like read, empty.
  const base = () => ({identifier: {}, relationship: {entity: {}, startDate: {}, endDate: {}}, meta: {created: {}, modified: {}}, startDate: {}, endDate: {}});
  const resources = [['organisations', client.getOrganisations, 'Organisation'], ['persons', client.getPersons, 'Person'],
    ['groups', client.getGroups, 'Group'], ['placements', client.getPlacements, 'Placement'], ['duties', client.getDuties, 'Duty']];
  const state = fs.existsSync(STATE) ? JSON.parse(fs.readFileSync(STATE)) : null;
  const since = state ? state.since : null;
  const records = state ? state.records : {};
  for (const [name, fn] of resources) {
    const params = base();
    params.limit = 100;
    if (since) params.meta.modified.after = since;
    let page = await call(fn, params);
    const got = {};
    const take = (p) => (p.data || []).forEach((r) => { got[r.id] = r.meta.modified; });
    take(page);
    while (page.pageToken) {
      const next = base();
      next.limit = 100;
      next.pageToken = page.pageToken;
      page = await call(fn, next);
      take(page);
    }
    records[name] = since ? Object.assign(records[name] || {}, got) : got;
  }
  if (since) {
    let page = await call(client.getDeletedEntities, {after: since, entities: resources.map((r) => r[2])});
    for (;;) {
      for (const [name] of resources) for (const id of (page.data || {})[name] || []) delete (records[name] || {})[id];
      if (!page.pageToken) break;
      page = await call(client.getDeletedEntities, {pageToken: page.pageToken});
    }
  }
  fs.writeFileSync(STATE, JSON.stringify({since: new Date(first.date.getTime() - 1000).toISOString(), records}));
  console.log('synced', Object.fromEntries(Object.entries(records).map(([k, v]) => [k, Object.keys(v).length])));
}

main().catch((e) => { console.error(e); process.exit(1); });
