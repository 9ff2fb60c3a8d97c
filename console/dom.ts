/** DOM helpers: the page's fixed elements by id, h() for the rest, and the page-wide notice, announcement and view. */
import { visible } from "../core/common/printable.ts";

type Attr = string | number | boolean | null | undefined | ((event: Event) => void);
export type Child = Node | string | null | undefined | false | readonly Child[];

/** The page is static: every id asked for is in index.html. */
export function $<T extends HTMLElement = HTMLElement>(id: string): T {
  return document.getElementById(id) as T;
}

export function h<K extends keyof HTMLElementTagNameMap>(tag: K, attrs?: Record<string, Attr> | null, ...children: Child[]): HTMLElementTagNameMap[K] {
  const el = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs || {})) {
    if (value === undefined || value === null || value === false) continue;
    if (typeof value === "function") el.addEventListener(name.slice(2), value);
    else el.setAttribute(name, value === true ? "" : String(value));
  }
  el.append(...present(children));
  return el;
}

export function fill<E extends Element>(el: E, ...children: Child[]): E {
  el.replaceChildren(...present(children));
  return el;
}

/** The children to append: text shown `visible` (most of it came from the API). */
function present(children: Child[]): (Node | string)[] {
  return ((children as unknown[]).flat(2).filter((c) => c !== undefined && c !== null && c !== false) as (Node | string)[]).map((c) => (typeof c === "string" ? visible(c) : c));
}

export function plural(n: number, word: string): string {
  return n + " " + word + (n === 1 ? "" : "s");
}

export function notice(text: string): void {
  const el = $("notice");
  el.textContent = visible(text || "");
  el.hidden = !text;
}

export function announce(text: string): void {
  $("announce").textContent = visible(text);
}

export function showView(name: "sign-in" | "configure" | "install"): void {
  for (const view of ["sign-in", "configure", "install"]) $(view).hidden = view !== name;
  $("sign-out").hidden = name === "sign-in";
  $("bundle").hidden = name === "sign-in";
  if (name === "sign-in") {
    $("unattended").hidden = true;
    $("where").textContent = "";
  }
}

/** Saves `blob` as the file `name` through the browser's own download. */
export function saveFile(blob: Blob, name: string): void {
  const url = URL.createObjectURL(blob);
  const link = h("a", { href: url, download: name, hidden: true });
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(url), 60000);
}
