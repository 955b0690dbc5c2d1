// Copy, the one control that needs a script: everything else is a plain form.

/** The key to copy: the revealed text on the page, or asked of the server for a masked key. */
async function keyToCopy(button) {
  const target = document.getElementById(button.dataset.copy);
  if (target && target.dataset.revealed === 'true') return target.textContent.trim();
  const response = await fetch(button.dataset.keyUrl, {
    method: 'POST',
    credentials: 'same-origin',
    headers: { 'x-csrf-token': button.dataset.csrf },
  });
  if (!response.ok) throw new Error(`HTTP ${response.status}`);
  return (await response.text()).trim();
}

function setUpCopy(button) {
  const status = document.getElementById('copy-status');
  button.hidden = false;
  button.addEventListener('click', async () => {
    status.textContent = '';
    status.classList.remove('failed');
    try {
      await navigator.clipboard.writeText(await keyToCopy(button));
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
