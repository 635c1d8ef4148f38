// Types of replymock's helper for JavaScript tests. The bodies' types are
// generated from the server's two OpenAPI documents (types/api.d.ts,
// types/admin.d.ts), so a wrong field is a compile error.

import type { components as APIComponents, paths as APIPaths } from "./types/api.js";
import type { components as AdminComponents, paths as AdminPaths } from "./types/admin.js";

export type { APIComponents, APIPaths, AdminComponents, AdminPaths };

type Schemas = AdminComponents["schemas"];
/** A review of the API's list (GET /api/v1/feedbacks). */
export type Feedback = APIComponents["schemas"]["Feedback"];
/** The auto-reply settings (GET /api/v1/settings/ai). */
export type Settings = APIComponents["schemas"]["Settings"];
/** A review to seed: what is left out is filled in the same way on every run. */
export type SeedReview = Schemas["SeedReview"];
export type SeedResult = Schemas["SeedResultEnvelope"]["data"];
/** A run-time fault: latency, or one of error, drop and truncate. */
export type Fault = Schemas["Fault"];
export type Overrides = Schemas["Overrides"];
export type JournalEntry = Schemas["JournalEntry"];
export type Verification = Schemas["Verification"];
export type NearMiss = Schemas["NearMiss"];
export type Health = Schemas["Health"];

/** Requests in a session's journal; what is left out matches anything. */
export interface Pattern {
  /** The method, in any case. */
  method?: string;
  /** The path with /api/v1, exact or a prefix ending in "*": "/api/v1/feedbacks". */
  path?: string;
  /** Query parameters, decoded: { answered: "0" }; a value ending in "*" is a prefix. */
  query?: Record<string, string | number>;
  /** Headers, names in any case; credentials match by scheme only ({ Authorization: "Bearer" }). */
  header?: Record<string, string>;
  /** Values in a JSON body by dotted path, arrays by index: { "feedback.0.tone": "formal" }. */
  body?: Record<string, string | number | boolean | null>;
  /** Only entries after this seq (a JournalEntry's), for newer ones. */
  since?: number;
}

/** How many requests a verification wants: count exactly, or min and max; at least one by default. */
export interface Times {
  count?: number;
  min?: number;
  max?: number;
}

export interface StartOptions {
  /** The scenario to serve (default "default"). */
  scenario?: string;
  /** Lock the admin API with this token (default REPLYMOCK_ADMIN_TOKEN's); the helper sends it. */
  adminToken?: string;
  /** More flags for the binary: ["--strict"], ["--seed", "7"]; not --addr, --log-format, nor a --log-level above info. */
  args?: readonly string[];
  /** The binary to run; default REPLYMOCK_BINARY, else the one npm installed for this platform. */
  binary?: string;
  /** The binary's environment (default this process's). */
  env?: Record<string, string | undefined>;
  /** How long to wait for the server to answer, in ms (default 30000). */
  startTimeout?: number;
  /** Each line of the server's log (JSON), e.g. console.error to see them. */
  onLog?: (line: string) => void;
}

/** A replymock server: its URLs, its sessions, and what applies to every session. */
export declare class Replymock {
  /** The server's base URL, http://127.0.0.1:PORT. */
  readonly url: string;
  /** The API's base URL: url + "/api/v1". */
  readonly apiURL: string;
  readonly adminToken?: string;
  /** A session no other test uses, named after name (a test's title) with a random part. */
  session(name?: string): Session;
  health(): Promise<Health>;
  /** Switches the scenario of every session that has not picked its own. */
  useScenario(name: string): Promise<void>;
  /** Returns every session to its start (seeded reviews and scenario picks stay). */
  reset(): Promise<void>;
}

/** A server this process started. */
export declare class ReplymockServer extends Replymock {
  /** The server process's id. */
  readonly pid: number;
  /** Stops the server (it drains requests in flight) and waits until it has exited. */
  stop(): Promise<void>;
}

/** One test's session: what it changes, no other session sees. */
export declare class Session {
  readonly server: Replymock;
  /** The id, sent as X-Mock-Session. */
  readonly id: string;
  readonly apiURL: string;
  /** { "X-Mock-Session": id }, for a client's or a browser page's requests. */
  readonly headers: Readonly<{ "X-Mock-Session": string }>;
  /** fetch on the API as this session; path is under /api/v1 ("/feedbacks?limit=5"). */
  fetch(path: string, init?: RequestInit): Promise<Response>;
  /** Makes name this session's scenario; an unknown name throws. */
  useScenario(name: string): Promise<void>;
  /** Makes reviews the session's whole list, in the order given (the first newest, unless dated). */
  seedReviews(reviews: SeedReview[], options?: { scenario?: string }): Promise<SeedResult>;
  /** Adds reviews to what the session's list holds; undated, they are the newest. */
  appendReviews(reviews: SeedReview[], options?: { scenario?: string }): Promise<SeedResult>;
  /** Forgets the reviews seeded into this session, in every scenario; returns how many. */
  clearReviews(): Promise<number>;
  /** Adds a run-time fault for this session; returns it with its id. */
  addFault(fault: Fault): Promise<Fault & { id: string }>;
  /** The session's next n requests matching method and path (after /api/v1: "/feedbacks"; "" any) answer status. */
  failNext(n: number, method: string, path: string, status: number): Promise<Fault & { id: string }>;
  /** Removes the run-time fault with id; none with that id throws. */
  removeFault(id: string): Promise<void>;
  /** Removes the session's run-time faults; returns how many. */
  clearFaults(): Promise<number>;
  /** Replaces the session's auth, rate limit and strict mode overrides. */
  setOverrides(overrides: Overrides): Promise<Overrides>;
  /** The session's settings, read past faults and auth. */
  settings(): Promise<Settings>;
  /** The session's journal entries that match pattern, oldest first (limit: the newest N). */
  requests(pattern?: Pattern & { limit?: number }): Promise<JournalEntry[]>;
  /** Empties the session's journal. */
  clearRequests(): Promise<void>;
  /**
   * Checks that the session's journal holds as many requests matching
   * pattern as times says (at least one by default), or throws a
   * VerificationError whose message names the nearest misses.
   */
  verify(pattern?: Pattern, times?: Times): Promise<Verification>;
  /**
   * Waits up to options.timeout ms (default 10000) for a request matching
   * pattern and returns the oldest; none in time throws a
   * VerificationError that names the nearest misses.
   */
  waitFor(pattern?: Pattern, options?: { timeout?: number }): Promise<JournalEntry>;
  /** Back to the start: settings, faults, overrides, shop and journal; the scenario and seeded reviews stay. */
  reset(): Promise<void>;
}

/** An error answer of the admin API, or none. */
export declare class ReplymockError extends Error {
  readonly status?: number;
  /** The API's error code: invalid_body, not_found, ... */
  readonly code?: string;
  /** The field at fault: reviews[0].product_valuation. */
  readonly field?: string;
  readonly details?: unknown;
}

/** A verification that does not hold. */
export declare class VerificationError extends ReplymockError {
  readonly verification: Verification;
  readonly pattern: Pattern;
}

/**
 * Runs replymock on a free loopback port and resolves once it answers.
 * It stops with stop(), and by itself when this process exits, killed
 * or not.
 */
export declare function startReplymock(options?: StartOptions): Promise<ReplymockServer>;

/** Reaches a server started elsewhere (a global setup): url, or REPLYMOCK_URL. */
export declare function connectReplymock(url?: string, options?: { adminToken?: string }): Replymock;
