// An e-mail address Cardlink sends mail to: zod's address shape (no spaces, quotes, line breaks or IP
// literals) with RFC 5321's lengths. Recipients are a tenant's input: the API's schemas check them with
// this rule, and so does the export service before any message is addressed.
import { z } from "zod";

/** At most 64 characters before the @, 254 in all, 63 in a domain label, as `format: email` validators apply them. */
export const EMAIL_LENGTHS = /^(?=[^@]{1,64}@)(?=.{1,254}$)(?=[^@]*@([^.@]{1,63}\.)+[^.@]{1,63}$)/;

export const isEmailAddress = (address: string) => z.regexes.email.test(address) && EMAIL_LENGTHS.test(address);
