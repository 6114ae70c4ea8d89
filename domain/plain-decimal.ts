/**
 * A decimal amount as the API takes it: digits, an optional fraction, no sign, no exponent, no
 * leading zeros (`12.5`, `0.25`). Group 2 is the fraction.
 */
export const plainDecimal = /^(0|[1-9][0-9]*)(?:\.([0-9]+))?$/;
