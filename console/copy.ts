/** Copy a read-only field's text: the clipboard API exists only in secure contexts; elsewhere the text is selected for the person to copy. */
export async function copyField(input: HTMLInputElement | HTMLTextAreaElement, said: HTMLElement, beforeSelect?: () => void): Promise<void> {
  said.textContent = "";
  if (navigator.clipboard) {
    try {
      await navigator.clipboard.writeText(input.value);
      said.textContent = "Copied";
      return;
    } catch {
      // refused (no permission, page not focused): select it instead
    }
  }
  beforeSelect?.();
  input.focus();
  input.select();
  said.textContent = document.execCommand("copy") ? "Copied" : "Selected: press Ctrl+C to copy";
}
