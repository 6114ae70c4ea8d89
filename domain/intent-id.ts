/** Intent ids look like `pi_` + 26 Crockford base32 characters (see client/new-intent-id.ts). */
export const intentIdPattern = /^pi_[0-9a-hjkmnp-tv-z]{26}$/;
