// Copy, the one control that needs a script: everything else is a plain form.

/**
 * The key to copy: the revealed text, or, while masked, the inert <template> beside it (the page's
 * Content-Security-Policy allows no fetch, so the key has to be in the page for Copy to work).
 */
function keyToCopy(button) {
  const target = document.getElementById(button.dataset.copy);
  if (target.dataset.revealed === 'true') return target.textContent.trim();
  return document.getElementById(`${button.dataset.copy}-value`).content.textContent.trim();
}

function setUpCopy(button) {
  const status = document.getElementById('copy-status');
  button.hidden = false;
  button.addEventListener('click', async () => {
    status.textContent = '';
    status.classList.remove('failed');
    try {
      await navigator.clipboard.writeText(keyToCopy(button));
      status.textContent = button.dataset.copied;
    } catch {
      status.textContent = button.dataset.failed;
      status.classList.add('failed');
    }
  });
}

for (const button of document.querySelectorAll('button[data-copy]')) {
  if (navigator.clipboard) setUpCopy(button);
}
