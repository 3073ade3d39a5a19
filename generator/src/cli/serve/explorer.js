// The damka explorer. The server does all the game's work (FEN, moves,
// values, the audit); this script draws what it answers and sends what the
// user does. body[data-state] is "ready" once the page shows the answer to
// the last change (tests wait for it), "error" when that answer was an
// error.
'use strict';

const $ = (id) => document.getElementById(id);
const state = { info: null, pieces: new Map(), lastMove: [], audit: null, slice: null, asked: 0 };

// GET path?params, the JSON answer, or an Error with the server's message.
async function api(path, params) {
  const query = new URLSearchParams(params || {}).toString();
  const response = await fetch(path + (query ? '?' + query : ''));
  const body = await response.json().catch(() => ({}));
  if (!response.ok) {
    const error = new Error(body.error || 'the server answered ' + response.status);
    error.status = response.status;
    throw error;
  }
  return body;
}

const words = (wdl) => wdl.replace('-', ' ');
const distance = (plies) => `${plies} ${plies === 1 ? 'ply' : 'plies'} (${Math.ceil(plies / 2)} ${Math.ceil(plies / 2) === 1 ? 'move' : 'moves'})`;

function el(tag, attrs, ...children) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (k === 'class') node.className = v; else if (k.startsWith('on')) node.addEventListener(k.slice(2), v); else node.setAttribute(k, v);
  }
  for (const c of children) node.append(c);
  return node;
}

function showError(text) {
  $('message').textContent = text;
  $('message').hidden = !text;
}

// --- the board ---------------------------------------------------------

function drawBoard() {
  const board = $('board');
  board.replaceChildren();
  const at = new Map(state.info.squares.map((s) => [`${s.row},${s.col}`, s.name]));
  for (let row = 0; row < 8; row++) {
    for (let col = 0; col < 8; col++) {
      const name = at.get(`${row},${col}`);
      if (name === undefined) {
        board.append(el('div', { class: 'cell light' }));
        continue;
      }
      const cell = el('div', { class: 'cell dark', 'data-square': name, onclick: () => place(name) }, el('span', { class: 'name' }, name));
      const piece = state.pieces.get(name);
      if (piece) {
        cell.append(el('div', { class: `piece ${piece.color}`, 'data-piece': (piece.color === 'white' ? 'w' : 'b') + (piece.king ? 'k' : 'm') }, piece.king ? '\u265B' : ''));
      }
      if (state.lastMove.includes(name)) cell.classList.add('last');
      board.append(cell);
    }
  }
}

// A click places the chosen piece, or removes the piece if it is the same.
function place(square) {
  const tool = document.querySelector('input[name=tool]:checked').value;
  const old = state.pieces.get(square);
  if (tool === 'erase') {
    state.pieces.delete(square);
  } else {
    const piece = { color: tool[0] === 'w' ? 'white' : 'black', king: tool[1] === 'k' };
    if (old && old.color === piece.color && old.king === piece.king) state.pieces.delete(square);
    else state.pieces.set(square, piece);
  }
  state.lastMove = [];
  changed();
}

// FEN from the pieces: the square names are the game's own, which its FEN reads.
function boardFen() {
  const side = (color) => [...state.pieces].filter(([, p]) => p.color === color).map(([sq, p]) => (p.king ? 'K' : '') + sq).join(',');
  return `${$('turn').value === 'white' ? 'W' : 'B'}:W${side('white')}:B${side('black')}`;
}

// Sets the board from the server's reading of a FEN (after a move, flipped).
async function setPosition(params, counters) {
  document.body.dataset.state = 'loading';
  try {
    const pos = await api('/api/position', params);
    state.pieces = new Map(pos.pieces.map((p) => [p.square, { color: p.color, king: p.king }]));
    $('turn').value = pos.turn;
    if (counters) {
      $('quiet').value = counters.quiet;
      $('kings-only').value = counters.kings_only;
    }
    changed();
  } catch (e) {
    showError(e.message);
    document.body.dataset.state = 'error';
  }
}

// --- the value and the moves --------------------------------------------

function counterParams() {
  if (!$('use-counters').checked) return {};
  return { quiet: $('quiet').value || '0', kings_only: $('kings-only').value || '0' };
}

async function changed() {
  drawBoard();
  const fen = boardFen();
  $('fen').value = fen;
  const link = `/?${new URLSearchParams({ fen, variant: state.info.variant, ...counterParams() })}`;
  $('share').href = link;
  $('share').textContent = decodeURIComponent(link);
  history.replaceState(null, '', link);
  $('line').replaceChildren();
  const asked = ++state.asked;
  document.body.dataset.state = 'loading';
  try {
    const probe = await api('/api/probe', { fen, variant: state.info.variant, ...counterParams() });
    if (asked !== state.asked) return;
    showError('');
    showProbe(probe);
    document.body.dataset.fen = probe.fen;
    document.body.dataset.material = probe.material;
    document.body.dataset.state = 'ready';
  } catch (e) {
    if (asked !== state.asked) return;
    showError(e.message);
    for (const id of ['value', 'pure', 'verdict']) $(id).textContent = '';
    $('moves').replaceChildren();
    document.body.dataset.state = 'error';
  }
}

function showProbe(probe) {
  const v = probe.value;
  const rules = probe.rules ? probe.rules.name : 'unknown';
  if (probe.no_legal_move) $('value').textContent = 'loss: no legal move';
  else if (v.wdl === 'draw') $('value').textContent = 'draw';
  else if (v.plies === 0) $('value').textContent = `${words(v.wdl)} (game over)`;
  else $('value').textContent = `${words(v.wdl)} in ${distance(v.plies)} to the next capture or promotion`;
  $('value').dataset.wdl = v.wdl;
  $('value').dataset.plies = v.plies;
  $('pure').textContent = `under rule set ${rules}, fresh counters; pure value (no move limits): ${words(v.pure)}`;
  const c = probe.counters;
  $('verdict').textContent = c
    ? `with ${c.quiet} quiet and ${c.kings_only} kings-only plies: ${c.wdl}${c.exact ? ' (exact)' : ''}`
    : '';
  showMoves(probe.moves);
  if (state.audit) selectSlice(probe.material, false);
}

function showMoves(moves) {
  const list = $('moves');
  list.replaceChildren();
  let group = null;
  for (const m of moves) {
    const key = m.with_counters ? m.with_counters.wdl : m.wdl;
    if (!group || group.dataset.group !== key) {
      group = el('div', { class: 'group', 'data-group': key }, el('h3', {}, words(key)), el('ol'));
      list.append(group);
    }
    const dist = m.wdl === 'draw' ? '' : distance(m.plies);
    const flags = [m.capture ? 'capture' : '', m.promotion ? 'promotion' : ''].filter(Boolean).join(', ');
    const counting = m.with_counters && $('use-counters').checked;
    const after = counting ? `quiet/kings-only after: ${m.with_counters.quiet}/${m.with_counters.kings_only}` : '';
    group.lastChild.append(el('li', { class: 'move', 'data-move': m.move, 'data-wdl': m.wdl, 'data-plies': m.plies },
      el('button', { type: 'button', onclick: () => play(m) }, m.move),
      el('span', { class: 'dist' }, dist), el('span', { class: 'after' }, [flags, after].filter(Boolean).join('; '))));
  }
  if (!moves.length) list.textContent = 'No legal move.';
}

function play(m) {
  state.lastMove = m.move.split(/[-:x]/);
  setPosition({ fen: boardFen(), move: m.move }, m.with_counters && $('use-counters').checked ? m.with_counters : null);
}

// The game `damka play` plays from here: both sides by the tables, the
// draw rules counted by an arbiter.
async function playOut() {
  const line = $('line');
  line.textContent = 'playing out...';
  try {
    const game = await api('/api/playout', { fen: boardFen(), ...counterParams() });
    const rows = game.moves.map((m, i) => el('tr', {},
      el('td', {}, String(i + 1)), el('td', { class: 'text' }, m.move), el('td', { class: 'text' }, words(m.wdl)),
      el('td', {}, m.wdl === 'draw' ? '' : String(m.plies)), el('td', {}, `${m.quiet}/${m.kings_only}`),
      el('td', { class: 'text fen' }, m.fen)));
    const head = el('tr', {}, ...['ply', 'move', 'value for the mover', 'plies', 'quiet/kings-only after', 'position after'].map((t) => el('th', {}, t)));
    const r = game.result;
    const loser = r.winner === 'white' ? 'black' : 'white';
    const end = {
      'no-move': `${r.winner} wins: ${loser} has no legal move`,
      'no-pieces': `${r.winner} wins: ${loser} has no piece left`,
      rule: `draw: the limit of rule ${r.rule} is reached`,
      repetition: 'draw by threefold repetition',
    }[r.reason];
    line.replaceChildren(el('table', { id: 'line-table' }, head, ...rows), el('p', { id: 'line-end' }, `End after ${r.plies} plies: ${end}.`));
  } catch (e) {
    line.textContent = e.message;
  }
}

// --- the audit -------------------------------------------------------------

async function loadAudit() {
  $('audit-load').disabled = true;
  for (;;) {
    try {
      state.audit = await api('/api/audit');
      break;
    } catch (e) {
      $('audit-status').textContent = e.message;
      if (e.status !== 503) return;
      await new Promise((r) => setTimeout(r, 1000));
    }
  }
  const a = state.audit;
  $('audit-status').textContent = `${a.variant}, rule set ${a.rules} (${a.rules_hash}): ${a.slices.length} slices. Click a slice.`;
  const cols = ['slice', 'positions', 'pure wins', 'rule wins', 'cursed', 'blessed', 'longest pure', 'longest rule', 'limit', 'ambiguous', 'rules'];
  const moves = (p) => (p === null || p === undefined ? '-' : `${p} (${Math.ceil(p / 2)}m)`);
  const rows = a.slices.map((s) => el('tr', { 'data-material': s.material, onclick: () => selectSlice(s.material, true) },
    el('td', { class: 'text' }, s.material), el('td', {}, String(s.positions)), el('td', {}, String(s.pure_wins)),
    el('td', {}, String(s.rule_wins)), el('td', {}, String(s.cursed_wins)), el('td', {}, String(s.blessed_losses)),
    el('td', {}, moves(s.longest_pure_win)), el('td', {}, moves(s.longest_rule_win)), el('td', {}, moves(s.limit_plies)),
    el('td', {}, `${(100 * s.ambiguous_states / Math.max(1, s.counter_states)).toFixed(2)}%`),
    el('td', { class: 'text' }, s.rules.map((r) => r.name).join(', '))));
  $('audit-table').replaceChildren(el('tr', {}, ...cols.map((c) => el('th', {}, c))), ...rows);
  $('audit-view').hidden = false;
  selectSlice(document.body.dataset.material || a.slices.find((s) => s.pure_wins > 0).material, true);
}

function selectSlice(material, force) {
  const s = state.audit.slices.find((x) => x.material === material);
  if (!s || (!force && state.slice === material)) return;
  state.slice = material;
  for (const tr of $('audit-table').querySelectorAll('tr[data-material]')) tr.classList.toggle('selected', tr.dataset.material === material);
  $('audit-plot').src = `/api/audit.svg?material=${encodeURIComponent(material)}`;
  const example = (label, fen) => (fen ? [el('span', {}, ` ${label}: `), el('a', { href: '#', class: 'fen', onclick: (e) => { e.preventDefault(); setPosition({ fen }); } }, fen)] : []);
  $('audit-slice').replaceChildren(el('p', {}, el('b', {}, material), ...example('longest pure win', s.longest_pure_win_fen),
    ...example('longest rule win', s.longest_rule_win_fen), ...example('cursed win', s.cursed_win_fen)));
}

// --- start -----------------------------------------------------------------

async function start() {
  state.info = await api('/api/info');
  const i = state.info;
  $('tables').textContent = `${i.variant} tables up to ${i.max_pieces} pieces, rule set ${i.rules ? i.rules.name : 'unknown'}`;
  $('turn').addEventListener('change', changed);
  $('clear').addEventListener('click', () => { state.pieces.clear(); state.lastMove = []; changed(); });
  $('start').addEventListener('click', () => setPosition({ fen: i.start_fen }));
  $('flip').addEventListener('click', () => setPosition({ fen: boardFen(), flip: '1' }));
  $('fen-form').addEventListener('submit', (e) => { e.preventDefault(); state.lastMove = []; setPosition({ fen: $('fen').value }); });
  for (const id of ['use-counters', 'quiet', 'kings-only']) $(id).addEventListener('change', changed);
  $('playout').addEventListener('click', playOut);
  $('audit-load').addEventListener('click', loadAudit);
  const url = new URLSearchParams(location.search);
  if (url.has('quiet') || url.has('kings_only')) {
    $('use-counters').checked = true;
    $('quiet').value = url.get('quiet') || '0';
    $('kings-only').value = url.get('kings_only') || '0';
  }
  if (url.has('variant') && url.get('variant') !== i.variant) {
    drawBoard();
    showError(`this link is for ${url.get('variant')}; this server has ${i.variant} tables`);
    document.body.dataset.state = 'error';
    return;
  }
  await setPosition({ fen: url.get('fen') || i.example_fen });
  if (url.get('audit') === '1') loadAudit();
}

start().catch((e) => { showError(e.message); document.body.dataset.state = 'error'; });
