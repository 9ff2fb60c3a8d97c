const MAX_SHOWN = 64;

/** A value as a message shows it: quoted, and cut short so no input floods a message. */
export function quoted(value: string): string {
  return JSON.stringify(value.length > MAX_SHOWN ? `${value.slice(0, MAX_SHOWN)}…` : value);
}

/** A value as a message shows it, unquoted when it is a short plain token (an address, a path). */
export function shown(value: string): string {
  return /^[\w.:/%@+-]{1,64}$/.test(value) ? value : quoted(value);
}
