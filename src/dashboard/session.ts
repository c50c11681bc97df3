// Dashboard sessions: a signed, HttpOnly, SameSite=Strict cookie naming the signed-in key by its id
// (or the operator), never the key itself. The signing secret is derived from the admin token, so
// every process of a deployment accepts the same cookies and a new admin token ends every session.
import { createHash } from "node:crypto";
import type { Context } from "hono";
import { deleteCookie, getSignedCookie, setSignedCookie } from "hono/cookie";
import type { Caller } from "../api/context.ts";
import { findKey, findKeyById } from "../services/accounts.ts";
import type { Db } from "../services/db.ts";

const COOKIE = "cardlink_session";
const FLASH = "cardlink_flash";
/** Sign-in lasts this long in wall-clock time: advancing the service clock a week signs nobody out. */
const LIFETIME_SECONDS = 12 * 60 * 60;

export type Session = { kind: "key"; caller: Caller } | { kind: "operator" };

export const sessionSecret = (adminToken: string) =>
  createHash("sha256").update(`cardlink-dashboard-session\0${adminToken}`).digest("hex");

const cookieOptions = (c: Context, maxAge: number) => ({
  path: "/dashboard",
  httpOnly: true,
  sameSite: "Strict" as const,
  secure: new URL(c.req.url).protocol === "https:",
  maxAge,
});

// eslint-disable-next-line no-restricted-syntax -- session lifetime is wall-clock time, not service time
const wallNow = () => Date.now();

export async function startSession(c: Context, secret: string, subject: { keyId: string } | "operator") {
  const value = `${subject === "operator" ? "operator" : `key:${subject.keyId}`}|${wallNow()}`;
  await setSignedCookie(c, COOKIE, value, secret, cookieOptions(c, LIFETIME_SECONDS));
}

export const endSession = (c: Context) => void deleteCookie(c, COOKIE, { path: "/dashboard" });

/** The session the request's cookie names, if it is signed by us, current, and its key is not revoked. */
export async function readSession(c: Context, secret: string, db: Db): Promise<Session | undefined> {
  const value = await getSignedCookie(c, secret, COOKIE);
  if (!value) return undefined;
  const [subject, issued] = value.split("|");
  const age = wallNow() - Number(issued);
  if (!subject || !Number.isFinite(age) || age < 0 || age > LIFETIME_SECONDS * 1000) return undefined;
  if (subject === "operator") return { kind: "operator" };
  if (!subject.startsWith("key:")) return undefined;
  const caller = await findKeyById(db, subject.slice(4));
  return caller && { kind: "key", caller };
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
