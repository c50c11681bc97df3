// Dashboard sessions: a signed, HttpOnly, SameSite=Strict cookie holding a random session id, whose
// record (src/services/accounts/sessions.ts) names the signed-in key by its id (or the operator), never
// the key itself. Sign-out, and revoking or rotating the key, delete the record: a copied cookie stops
// working at once. A key's session acts in the key's environment or in a sandbox of the key's account
// it switched to, kept in the same record (the cookie carries no environment). The cookie's signing
// secret is derived from the admin token, so a new admin token ends every session too. The cookie is
// `Secure` when the browser's connection is https (directly, or through a TLS proxy with TRUST_PROXY).
import { createHash } from "node:crypto";
import type { Context } from "hono";
import { deleteCookie, getSignedCookie, setSignedCookie } from "hono/cookie";
import type { Caller } from "../api/context.ts";
import { requestIsHttps } from "../api/middleware/security-headers.ts";
import { findKey, findKeyById, findSandboxCaller } from "../services/accounts/index.ts";
import { endDashboardSession, findDashboardSession, startDashboardSession, type SessionSubject } from "../services/accounts/index.ts";
import type { Db } from "../platform/db.ts";

const COOKIE = "cardlink_session";
const FLASH = "cardlink_flash";
/** Sign-in lasts this long in wall-clock time: advancing the service clock a week signs nobody out. */
const LIFETIME_SECONDS = 12 * 60 * 60;

/** A key's session: the key's own environment, and the one its pages act in. */
export interface KeySession {
  kind: "key";
  id: string;
  /** The signed-in key's own environment: an account's, or a sandbox's when signed in with a sandbox's key. */
  key: Caller;
  /** Where pages read and act: `key`, or the sandbox of the key's account the session switched to. */
  caller: Caller;
  /** The sandbox the session had switched to, gone since (deleted or expired): `caller` is `key` again. */
  lostSandbox?: string;
}

/** TEST or LIVE: the signed-in key's environment, the one its account's sandboxes are entered in too. */
export const environmentName = (session: KeySession) => (session.key.live ? "LIVE" : "TEST");

/** What the environment's time is called on the pages: a sandbox's own, or the service's. */
export const timeOf = (session: Session) =>
  session.kind === "key" && session.caller.parentId ? { time: "sandbox time", clock: "the sandbox's clock" } : { time: "service time", clock: "the service clock" };

/** A signed-in session, with the id its record is kept under (the live feed checks it is still there). */
export type Session = KeySession | { kind: "operator"; id: string };

export const sessionSecret = (adminToken: string) =>
  createHash("sha256").update(`cardlink-dashboard-session\0${adminToken}`).digest("hex");

const cookieOptions = (c: Context, maxAge: number) => ({
  path: "/dashboard",
  httpOnly: true,
  sameSite: "Strict" as const,
  secure: requestIsHttps(c),
  maxAge,
});

// eslint-disable-next-line no-restricted-syntax -- session lifetime is wall-clock time, not service time
const wallNow = () => new Date(Date.now());

export async function startSession(c: Context, secret: string, db: Db, subject: SessionSubject) {
  const now = wallNow();
  const id = await startDashboardSession(db, subject, now, new Date(now.getTime() + LIFETIME_SECONDS * 1000));
  await setSignedCookie(c, COOKIE, id, secret, cookieOptions(c, LIFETIME_SECONDS));
}

/** Sign-out: the record goes (so a copy of the cookie is no session either), then the browser's cookie. */
export async function endSession(c: Context, secret: string, db: Db) {
  const id = await getSignedCookie(c, secret, COOKIE);
  if (id) await endDashboardSession(db, id);
  deleteCookie(c, COOKIE, { path: "/dashboard", secure: requestIsHttps(c) });
}

/** The session `id` names, if its record is current and its key not revoked. */
export async function sessionById(db: Db, id: string): Promise<Session | undefined> {
  const subject = await findDashboardSession(db, id, wallNow());
  if (!subject) return undefined;
  if (subject === "operator") return { kind: "operator", id };
  const key = await findKeyById(db, subject.keyId);
  if (!key) return undefined;
  if (subject.sandboxId === null) return { kind: "key", key, caller: key, id };
  // The same rule as the API's <SERVICE_NAME>-Sandbox header: a sandbox of the key's account, in the key's environment.
  const sandbox = await findSandboxCaller(db, key, subject.sandboxId);
  if (sandbox) return { kind: "key", key, caller: sandbox, id };
  return { kind: "key", key, caller: key, id, lostSandbox: subject.sandboxId };
}

/** The session the request's cookie names, if it is signed by us and its record is current. */
export async function readSession(c: Context, secret: string, db: Db): Promise<Session | undefined> {
  const id = await getSignedCookie(c, secret, COOKIE);
  return id ? sessionById(db, id) : undefined;
}

/** The key a sign-in form presents, checked as the API checks it. */
export const keyCaller = (db: Db, key: string) => findKey(db, key.trim());

export interface Flash {
  kind: "ok" | "error";
  text: string;
}

/** A message for the next page shown (after a redirect), in a short-lived signed cookie. */
export async function setFlash(c: Context, secret: string, flash: Flash) {
  await setSignedCookie(c, FLASH, JSON.stringify(flash), secret, cookieOptions(c, 60));
}

export async function takeFlash(c: Context, secret: string): Promise<Flash | undefined> {
  const value = await getSignedCookie(c, secret, FLASH);
  if (value === undefined) return undefined;
  deleteCookie(c, FLASH, { path: "/dashboard" });
  try {
    return value ? (JSON.parse(value) as Flash) : undefined;
  } catch {
    return undefined;
  }
}
