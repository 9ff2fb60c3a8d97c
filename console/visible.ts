/**
 * Text from the API as the page shows it: control characters other than tab and newline, the bidi controls that
 * reorder what a person reads and the invisible ones that hide text (zero-width space, word joiner, byte order mark)
 * written out (`\u202e`), never obeyed. A cloud's or a firstboot's text sits inside the installer's own sentences (a
 * verdict's message): a right-to-left override in it turned the rest of the sentence around. ZWJ and ZWNJ stay.
 */
export function visible(text: string): string {
  return text.replace(HIDDEN, (c) => "\\u" + c.charCodeAt(0).toString(16).padStart(4, "0"));
}

const HIDDEN = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u2028\u2029\u200b\u2060\ufeff\p{Bidi_Control}]/gu;
