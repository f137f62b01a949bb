/**
 * Where a planner thread puts a search page's rows for the event loop: UTF-8 JSON in a slot of shared
 * memory, instead of a string in the message. As strings the pages were the event loop's largest
 * allocation and what its scavenges kept: a message of a page arrives as a fresh string (pretenured into
 * the old generation when the message is over 100 KB), was copied again when the body was put together,
 * and 4.3 MB survived each scavenge under searches at c=16, filling the old generation until a
 * mark-compact stopped every request in flight for 70-120 ms, every 3-4 s. With the pages kept out of the
 * heap (a scratch build that sent no rows at all), 0.1 MB survived and those stalls were gone
 * (docs/data-contract.md "Fifteenth round"). A slot is sent as it is: the REST answer's envelope is written
 * around the rows inside the slot, and the socket writes a view of it.
 *
 * A slot is taken by the thread (state 0 -> a token) and given back by the event loop (token -> 0) once
 * nothing reads it: when the answer's last byte went to the socket, when its items were parsed, or, when
 * neither happens (an answer dropped for a 402, a client gone mid-write), when the PageBytes holding it is
 * collected. A token is given back only by its own holder, so a late or second release does nothing.
 */

/** Bytes before the rows, for the start of the envelope (`{"data":{"items":`). */
export const PAGE_HEAD = 1024;
/** Bytes after the rows, for the rest of the envelope (paging, meta). */
export const PAGE_TAIL = 4096;

export interface PageArenaShared {
  memory: SharedArrayBuffer;
  /** Per slot: 0 when free, else the token of the page in it. */
  states: Int32Array;
  slotBytes: number;
}

export function createPageArena(slots: number, slotBytes: number): PageArenaShared {
  return {
    memory: new SharedArrayBuffer(slots * slotBytes),
    states: new Int32Array(new SharedArrayBuffer(slots * 4)),
    slotBytes,
  };
}

/** Where a page's rows are: the slot, its token, and the rows' length in bytes (after PAGE_HEAD). */
export interface PageSlot {
  slot: number;
  token: number;
  length: number;
}

/** The planner thread's side: puts a page's JSON into a free slot. */
export class PageArenaWriter {
  private readonly bytes: Buffer;
  private next = 0;
  private token = 0;

  constructor(private readonly arena: PageArenaShared) {
    this.bytes = Buffer.from(arena.memory);
  }

  /** The slot now holding `json`, or null when none is free or the page does not fit one. */
  write(json: string): PageSlot | null {
    const { states, slotBytes } = this.arena;
    const room = slotBytes - PAGE_HEAD - PAGE_TAIL;
    // UTF-8 takes at most three bytes per UTF-16 code unit.
    if (json.length * 3 > room && Buffer.byteLength(json) > room) return null;
    this.token = (this.token % 0x7fffffff) + 1;
    for (let n = 0; n < states.length; n++) {
      const slot = (this.next + n) % states.length;
      if (Atomics.compareExchange(states, slot, 0, this.token) !== 0) continue;
      this.next = slot + 1;
      const at = slot * slotBytes + PAGE_HEAD;
      return { slot, token: this.token, length: this.bytes.write(json, at, 'utf8') };
    }
    return null;
  }
}

const released = new FinalizationRegistry<{ states: Int32Array; slot: number; token: number }>((s) => {
  Atomics.compareExchange(s.states, s.slot, s.token, 0);
});

/** The event loop's side: a page's rows in a slot, until released. */
export class PageBytes {
  private readonly held: { states: Int32Array; slot: number; token: number };
  private readonly start: number;
  private released = false;
  /** A view from `framed` is on its way to a socket: only `sent` gives the slot back now. */
  private framedView = false;

  constructor(
    private readonly arena: PageArenaShared,
    readonly page: PageSlot,
  ) {
    this.start = page.slot * arena.slotBytes + PAGE_HEAD;
    this.held = { states: arena.states, slot: page.slot, token: page.token };
    released.register(this, this.held, this);
  }

  /** The rows' JSON text (a copy: the slot may be released after). */
  text(): string {
    if (this.released) throw new Error('page bytes read after release');
    return Buffer.from(this.arena.memory, this.start, this.page.length).toString('utf8');
  }

  /** The text, with the slot given back (unless a framed view of it is being sent). */
  take(): string {
    const text = this.text();
    this.release();
    return text;
  }

  /**
   * `head` + the rows + `tail` as one view of the slot, or null when they do not fit around the rows. The
   * view holds this PageBytes, so the slot is not collected away while the view is being written.
   */
  framed(head: string, tail: string): Buffer | null {
    if (this.released) throw new Error('page bytes read after release');
    const headBytes = Buffer.byteLength(head);
    const tailBytes = Buffer.byteLength(tail);
    const slotEnd = (this.page.slot + 1) * this.arena.slotBytes;
    const end = this.start + this.page.length;
    if (headBytes > PAGE_HEAD || end + tailBytes > slotEnd) return null;
    const view = Buffer.from(
      this.arena.memory,
      this.start - headBytes,
      headBytes + this.page.length + tailBytes,
    );
    view.write(head, 0, 'utf8');
    view.write(tail, headBytes + this.page.length, 'utf8');
    Object.defineProperty(view, HOLDER, { value: this });
    this.framedView = true;
    return view;
  }

  /** Gives the slot back, unless a framed view of it is being sent; nothing may read it after. */
  release(): void {
    if (!this.framedView) this.sent();
  }

  /** Gives the slot back once the framed view was written (or was never sent); nothing may read it after. */
  sent(): void {
    if (this.released) return;
    this.released = true;
    released.unregister(this);
    Atomics.compareExchange(this.held.states, this.held.slot, this.held.token, 0);
  }
}

const HOLDER = Symbol('page bytes');

/** The PageBytes a body made by `framed` holds, to release once the body was written. */
export function pageOfBody(body: unknown): PageBytes | undefined {
  return Buffer.isBuffer(body) ? (body as { [HOLDER]?: PageBytes })[HOLDER] : undefined;
}
