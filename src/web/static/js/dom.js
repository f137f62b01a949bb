/* global document, window, fetch */
// The page helpers every module shares: an element builder, the JSON call with the CSRF header, and the
// one-at-a-time runner for calls that cost credits. Nothing runs on import.
import { errorText } from './format.js';

/**
 * Tiny element builder: el('td', {class: 'x'}, 'text', child). Strings become text nodes, never markup, so
 * a value from the server cannot inject anything; `on…` attributes become listeners.
 */
export function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (v === false || v === null || v === undefined) continue;
    if (k.startsWith('on')) node.addEventListener(k.slice(2), v);
    else node.setAttribute(k, v === true ? '' : String(v));
  }
  for (const c of children.flat(Infinity)) {
    if (c === null || c === undefined || c === false) continue;
    node.append(c instanceof window.Node ? c : document.createTextNode(String(c)));
  }
  return node;
}

/** A GET (no body) or a JSON POST to the app's own endpoints; a refusal throws an Error saying why. */
export async function api(path, body) {
  const csrf = document.querySelector('meta[name="csrf-token"]')?.getAttribute('content') ?? '';
  const res = await fetch(path, {
    method: body === undefined ? 'GET' : 'POST',
    headers: { 'x-csrf-token': csrf, ...(body !== undefined && { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
    credentials: 'same-origin',
  });
  const data = await res.json().catch(() => ({ detail: `HTTP ${res.status}` }));
  if (!res.ok) throw new Error(errorText(res.status, data));
  return data;
}

let costlyRunning = false;

/**
 * Runs one call that costs credits, with every costing button (data-costs) disabled until it answers. A
 * second click while one runs is dropped, so a double click is charged once.
 */
export async function costly(fn) {
  if (costlyRunning) return;
  costlyRunning = true;
  const held = [...document.querySelectorAll('button[data-costs]')].filter((b) => !b.disabled);
  for (const b of held) b.disabled = true;
  try {
    await fn();
  } finally {
    costlyRunning = false;
    // A button whose answer is on the page already (data-done) stays disabled: clicking again would pay twice.
    for (const b of held) if (!b.hasAttribute('data-done')) b.disabled = false;
  }
}
