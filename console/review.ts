/** Review before erase: the node.yaml the install writes and the disks it erases; Install waits for the disks to be confirmed. */
import type { Failure, Schemas } from "./api.ts";
import { diskFacts, stableNote } from "./disks.ts";
import { $, fill, h, plural } from "./dom.ts";
import { send } from "./store.ts";
import { unsavedEdits } from "./unsaved.ts";
import { visible } from "../core/common/printable.ts";

/** The review on screen (JSON), "" while none is. */
let shown = "";
/** The draft's ETag as reviewed: POST /install names it, so a draft changed since is refused, not installed unseen. */
let reviewedEtag = "";
/** Which refresh may still draw: an older answer arriving late must not show a review of a draft since changed. */
let generation = 0;
let loading: Promise<void> = Promise.resolve();

/** A review is on screen and its disks are confirmed, or it erases none. */
export function reviewConfirmed(): boolean {
  return shown !== "" && ($("review-erases").hidden || $<HTMLInputElement>("erase-confirm").checked);
}

export function updateInstallButton(): void {
  $<HTMLButtonElement>("install-button").disabled = $("review").hidden || !reviewConfirmed() || unsavedEdits() !== "";
}

export const reviewed = (): string => reviewedEtag;

/** After a refused install of a changed draft: the new review, unconfirmed, in focus. */
export async function reviewAgain(): Promise<void> {
  await loading.catch(() => undefined);
  $<HTMLInputElement>("erase-confirm").checked = false;
  updateInstallButton();
  await focusReview();
}

function hide(): void {
  shown = "";
  reviewedEtag = "";
  $("review").hidden = true;
}

/** Shown while the draft can be installed, as the API renders it; hidden otherwise. */
export function refreshReview(ready: boolean): Promise<void> {
  const mine = ++generation;
  if (!ready) {
    hide();
    return (loading = Promise.resolve());
  }
  loading = send("/config/review").then(
    ({ data: review, etag }) => {
      if (mine !== generation) return;
      reviewedEtag = etag;
      render(review);
    },
    (problem: Failure) => {
      if (mine !== generation) return;
      hide();
      updateInstallButton();
      if (problem.status !== 422) throw problem;
    },
  );
  return loading;
}

/** Once the review has loaded: focus on it, or on the Install card when there is nothing to review. */
export async function focusReview(): Promise<void> {
  await loading.catch(() => undefined);
  ($("review").hidden ? $("install-card") : $("review")).focus();
}

function render(review: Schemas["InstallReview"]): void {
  const key = JSON.stringify(review);
  if (key === shown) return;
  const before = shown ? (JSON.parse(shown) as Schemas["InstallReview"]).erases : [];
  shown = key;
  $("review").hidden = false;
  $("review-yaml").textContent = visible(review.nodeYaml);
  const erases = review.erases.length > 0;
  $("review-erases").hidden = !erases;
  $("review-none").hidden = erases;
  $("erase-count").textContent = plural(review.erases.length, "disk") + " will be erased";
  fill($("review-disks"), review.erases.map(diskItem));
  // A confirmation holds for the disks it was given for.
  if (JSON.stringify(before) !== JSON.stringify(review.erases)) $<HTMLInputElement>("erase-confirm").checked = false;
  updateInstallButton();
}

function diskItem(disk: Schemas["HostDisk"]): HTMLElement {
  return h("li", {}, h("strong", {}, disk.path), ": " + diskFacts(disk) + ". " + (stableNote(disk) || "No stable path: node.yaml names it " + disk.path + "."));
}
