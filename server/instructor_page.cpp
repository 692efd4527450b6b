#include "server/instructor_page.h"

#include "sim/classroom/hand_in.h"

namespace tycoon::server {

namespace {

constexpr std::string_view kPage = R"html(<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Inference Tycoon — class server</title>
<style>
  body { font: 15px system-ui, sans-serif; margin: 0 auto; max-width: 1100px; padding: 12px 20px; color: #1b2330; }
  h1 { font-size: 22px; margin: 8px 0; } h2 { font-size: 18px; margin: 22px 0 8px; border-bottom: 1px solid #ccd; }
  table { border-collapse: collapse; width: 100%; } th, td { padding: 4px 8px; border-bottom: 1px solid #e3e6ee; text-align: left; }
  th { background: #eef1f7; } td.num { text-align: right; font-variant-numeric: tabular-nums; }
  .flag { color: #a01818; } .muted { color: #667; } .err { color: #a01818; font-weight: 600; } .ok { color: #17622b; }
  input, select, button, textarea { font: inherit; } button { cursor: pointer; }
  form { display: flex; flex-wrap: wrap; gap: 8px; align-items: end; } label { display: flex; flex-direction: column; font-size: 13px; }
  code { font-size: 13px; }
  #charts svg { max-width: 100%; height: auto; display: block; margin: 10px 0; } #charts figure { margin: 0; }
</style>
</head>
<body>
<h1>Inference Tycoon — class server</h1>
<p id="msg" class="muted">Paste the token <code>tycoon class serve</code> printed, or open this page as
<code>/instructor#token=TOKEN</code>.</p>
<form id="token-form"><label>Instructor token<input id="token" type="password" size="70" autocomplete="off"></label><button>Use</button></form>

<h2>Class</h2>
<form id="pick-form"><label>Class<select id="class-select"></select></label>
  <a id="csv" href="#">Gradebook CSV</a> <a id="briefing" href="#">Printable briefing and links</a>
  <a id="report" href="#" title="The class report: the runs to discuss, the reference strategy, advice calls against the truth (the answer key: for you, not the students)">Full report (answer key)</a></form>
<h2>New class</h2>
<form id="new-form">
  <label>Class id<input name="class_id" placeholder="econ-101" required></label>
  <label>Scenario<input name="scenario" value="prices-only" required></label>
  <label>Seed<input name="seed" type="number" min="0"></label>
  <label>Days<input name="days" type="number" min="1"></label>
  <label>Title<input name="title" size="30"></label>
  <button>Create</button>
</form>

<h2>Roster</h2>
<form id="roster-form"><label>Students, one a line<textarea id="roster" rows="4" cols="40"></textarea></label><button>Add</button></form>
<table id="codes"></table>

<h2>Deadline and attempts</h2>
<form id="policy-form">
  <label>Deadline (UTC)<input id="deadline" placeholder="2026-12-11T17:00:00Z" size="24"></label>
  <label>After it<select id="late">@LATE_OPTIONS@</select></label>
  <label>Attempt that counts<select id="attempts">@ATTEMPT_OPTIONS@</select></label>
  <button>Save</button>
</form>

<h2>Leaderboard <span class="muted" id="updated"></span></h2>
<table id="board"></table>
<p id="waiting" class="muted"></p>

<h2>Charts <span class="muted">(the class report's: each student one colour, benchmarks dashed)</span></h2>
<div id="charts"><p class="muted">No hand-ins yet.</p></div>

<h2>Side by side</h2>
<form id="compare-form"><label>Student<select id="cmp-a"></select></label><label>Student<select id="cmp-b"></select></label><button>Compare</button></form>
<table id="compare"></table>

<script>
'use strict';
let token = new URLSearchParams(location.hash.slice(1)).get('token') || sessionStorage.getItem('tycoon-token') || '';
const $ = (id) => document.getElementById(id);
$('token').value = token;
function say(text, ok) { $('msg').textContent = text; $('msg').className = ok ? 'ok' : 'err'; }
function esc(s) { return String(s).replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]); }
async function api(method, path, body, type) {
  const r = await fetch(path, { method, headers: Object.assign({ Authorization: 'Bearer ' + token },
                                                                body ? { 'Content-Type': type || 'application/json' } : {}), body });
  const text = await r.text();
  let j = null;
  try { j = JSON.parse(text); } catch (e) { j = null; }
  if (!r.ok) throw new Error((j && j.error) || ('HTTP ' + r.status));
  return j === null ? text : j;
}
const current = () => $('class-select').value;
async function loadClasses(select) {
  const j = await api('GET', '/api/classes');
  $('class-select').innerHTML = j.classes.map((c) => '<option>' + esc(c['class'].class_id) + '</option>').join('');
  if (select) $('class-select').value = select;
  await refresh();
}
function row(cells) { return '<tr>' + cells.join('') + '</tr>'; }
async function refresh() {
  if (!current()) return;
  const b = await api('GET', '/api/classes/' + current() + '/leaderboard');
  $('deadline').value = b.policy.deadline || ''; $('late').value = b.policy.late; $('attempts').value = b.policy.attempts;
  const head = row(['#', 'student', 'score', 'stars', 'profit', 'SLO', 'game', 'late', 'attempts', 'handed in', 'flags'].map((h) => '<th>' + h + '</th>'));
  $('board').innerHTML = head + b.standings.map((s) => { const c = s.counted; return row([
    '<td class="num">' + s.rank + '</td>', '<td>' + esc(s.student) + '</td>', '<td class="num">' + c.score.toFixed(1) + '</td>',
    '<td class="num">' + c.stars + '</td>', '<td class="num">$' + c.profit_usd.toFixed(0) + '</td>',
    '<td class="num">' + (100 * c.slo_attainment).toFixed(1) + '%</td>',
    '<td>' + (c.finished ? 'finished' : 'unfinished, hour ' + c.at_hour + ' of ' + c.end_hour) + '</td>',
    '<td>' + (c.late ? 'late' : '') + '</td>', '<td class="num">' + s.attempts + ' (counted: ' + c.attempt + ')</td>',
    '<td>' + esc(c.handed_in_at) + '</td>', '<td class="flag">' + s.flags.map(esc).join('<br>') + '</td>']); }).join('');
  $('waiting').textContent = b.not_handed_in.length ? 'Not handed in: ' + b.not_handed_in.map((s) =>
    s.student + (s.started_at ? ' (started ' + s.started_at + ')' : ' (not started)')).join(', ') : '';
  const names = b.standings.map((s) => '<option>' + esc(s.student) + '</option>').join('');
  for (const id of ['cmp-a', 'cmp-b']) { const v = $(id).value; $(id).innerHTML = names; if (v) $(id).value = v; }
  $('updated').textContent = '(updated ' + new Date().toLocaleTimeString() + ', every 10 s)';
  // The charts are drawn by the server (the class report's own); fetched again when a hand-in counts.
  const key = current() + '|' + b.standings.map((s) => s.student + '#' + s.counted.attempt).join(',');
  // Two refreshes can overlap (the 10 s timer and a click): a later one's charts are not overwritten
  // by an earlier one whose request answered last.
  if (key !== chartsKey) {
    const seq = ++chartsSeq;
    const html = b.standings.length ? await api('GET', '/api/classes/' + current() + '/charts.html')
                                    : '<p class="muted">No hand-ins yet.</p>';
    if (seq === chartsSeq) { $('charts').innerHTML = html; chartsKey = key; }
  }
}
let chartsKey = '', chartsSeq = 0;
function guard(fn) { return (e) => { if (e) e.preventDefault(); fn().catch((err) => say(err.message, false)); }; }
$('token-form').onsubmit = guard(async () => { token = $('token').value.trim(); sessionStorage.setItem('tycoon-token', token);
  await loadClasses(); say('Signed in.', true); });
$('class-select').onchange = guard(refresh);
$('new-form').onsubmit = guard(async () => {
  const f = new FormData($('new-form')); const body = {};
  for (const [k, v] of f.entries()) if (v !== '') body[k] = (k === 'seed' || k === 'days') ? Number(v) : v;
  const j = await api('POST', '/api/classes', JSON.stringify(body));
  await loadClasses(j['class'].class_id); say('Class ' + j['class'].class_id + ' created.', true); });
$('roster-form').onsubmit = guard(async () => {
  const j = await api('POST', '/api/classes/' + current() + '/roster', $('roster').value, 'text/plain');
  $('codes').innerHTML = row(['<th>student</th>', '<th>code</th>', '<th>link to hand out</th>']) + j.students.map((s) =>
    row(['<td>' + esc(s.student) + '</td>', '<td><code>' + esc(s.code) + '</code></td>',
         '<td><code>' + esc(location.origin + s.link) + '</code></td>'])).join('');
  $('roster').value = ''; say(j.students.length + ' students added: hand each their link (shown once here).', true); await refresh(); });
$('policy-form').onsubmit = guard(async () => {
  const d = $('deadline').value.trim();
  await api('PUT', '/api/classes/' + current() + '/policy', JSON.stringify({ deadline: d === '' ? null : d,
    late: $('late').value, attempts: $('attempts').value }));
  say('Policy saved.', true); await refresh(); });
$('compare-form').onsubmit = guard(async () => {
  const j = await api('GET', '/api/classes/' + current() + '/compare?a=' + encodeURIComponent($('cmp-a').value) +
                              '&b=' + encodeURIComponent($('cmp-b').value));
  const [a, b] = j.students;
  const line = (label, f) => row(['<th>' + label + '</th>', '<td>' + f(a) + '</td>', '<td>' + f(b) + '</td>']);
  const cmds = (s) => s.commands.map((c) => 'h' + c.at_hour + ' ' + esc(c.type) + (c.output_usd_per_mtok !== undefined ?
    ' $' + c.output_usd_per_mtok + '/Mtok out' : '')).join('<br>');
  $('compare').innerHTML = row(['<th></th>', '<th>' + esc(a.student) + '</th>', '<th>' + esc(b.student) + '</th>']) +
    line('score', (s) => s.counted.score.toFixed(1)) + line('profit', (s) => '$' + s.counted.profit_usd.toFixed(0)) +
    line('SLO', (s) => (100 * s.counted.slo_attainment).toFixed(1) + '%') +
    line('game', (s) => s.counted.finished ? 'finished' : 'unfinished, hour ' + s.counted.at_hour) +
    line('commands', cmds) + row(['<th>similarity</th>', '<td colspan="2">' + j.command_similarity.toFixed(2) + '</td>']); });
$('csv').onclick = guard(async () => {
  const text = await api('GET', '/api/classes/' + current() + '/gradebook.csv');
  const a = document.createElement('a');
  a.href = URL.createObjectURL(new Blob([text], { type: 'text/csv' })); a.download = current() + '-gradebook.csv'; a.click(); });
$('briefing').onclick = guard(async () => {
  const html = await api('GET', '/api/classes/' + current() + '/briefing.html');
  window.open(URL.createObjectURL(new Blob([html], { type: 'text/html' })), '_blank'); });
$('report').onclick = guard(async () => {
  const html = await api('GET', '/api/classes/' + current() + '/report.html');
  window.open(URL.createObjectURL(new Blob([html], { type: 'text/html' })), '_blank'); });
if (token) loadClasses().then(() => say('Signed in.', true), (e) => say(e.message, false));
setInterval(() => { if (token && current()) refresh().catch((e) => say(e.message, false)); }, 10000);
</script>
</body>
</html>
)html";

// The choices a class's policies take, as sim/classroom names them (the API parses the same
// names); the default first.
std::string late_options() {
  std::string out;
  for (auto p : {classroom::kDefaultLatePolicy, classroom::LatePolicy::kRefuse, classroom::LatePolicy::kMark}) {
    const std::string name(classroom::to_string(p));
    if (out.find("\"" + name + "\"") != std::string::npos) continue;
    out += "<option value=\"" + name + "\">" +
           (p == classroom::LatePolicy::kRefuse ? "refuse hand-ins" : "mark them late") + "</option>";
  }
  return out;
}

std::string attempt_options() {
  std::string out;
  for (auto p : {classroom::kDefaultAttemptPolicy, classroom::AttemptPolicy::kBest, classroom::AttemptPolicy::kLast,
                 classroom::AttemptPolicy::kFirst}) {
    const std::string name(classroom::to_string(p));
    if (out.find("\"" + name + "\"") != std::string::npos) continue;
    out += "<option value=\"" + name + "\">" + name + "</option>";
  }
  return out;
}

std::string fill(std::string page, std::string_view slot, const std::string& text) {
  const auto at = page.find(slot);
  if (at != std::string::npos) page.replace(at, slot.size(), text);
  return page;
}

}  // namespace

const std::string& instructor_page_html() {
  static const std::string page =
      fill(fill(std::string(kPage), "@LATE_OPTIONS@", late_options()), "@ATTEMPT_OPTIONS@", attempt_options());
  return page;
}

}  // namespace tycoon::server
