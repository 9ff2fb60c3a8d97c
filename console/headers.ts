/** The page may load only its own script and stylesheet and talk only to this installer. */
const PAGE_POLICY = "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; img-src 'self' data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

export function consoleHeaders(contentType: string): Record<string, string> {
  return { "Content-Type": contentType, "Cache-Control": "no-cache", "Content-Security-Policy": PAGE_POLICY };
}
