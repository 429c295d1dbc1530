// The settings page: fills the form from the main process, saves through it (which validates,
// writes settings.json and restarts the server) and shows what went wrong next to the field.
'use strict';
const api = window.folioSettings;
const form = document.getElementById('form');
const status = document.getElementById('status');
const fields = ['port', 'lanSharing', 'smtpUrl', 'mailFrom'];

function showStatus(text, failed) {
  status.textContent = text;
  status.className = failed ? 'fail' : '';
}

function clearErrors() {
  for (const el of document.querySelectorAll('.error')) el.textContent = '';
}

function fill(settings) {
  form.port.value = String(settings.port);
  form.lanSharing.checked = settings.lanSharing;
  form.smtpUrl.value = settings.smtpUrl || '';
  form.mailFrom.value = settings.mailFrom || '';
}

api.load().then(({ settings, settingsFile, running }) => {
  fill(settings);
  document.getElementById('where').textContent = `Saved in ${settingsFile}`;
  if (running) showStatus(`Server running at ${running.localUrl}`, false);
});

form.addEventListener('submit', async (event) => {
  event.preventDefault();
  clearErrors();
  const changes = {
    port: form.port.value.trim(),
    lanSharing: form.lanSharing.checked,
    smtpUrl: form.smtpUrl.value,
    mailFrom: form.mailFrom.value,
  };
  document.getElementById('save').disabled = true;
  showStatus('Saving and restarting the server…', false);
  try {
    const result = await api.save(changes);
    if (result.ok) {
      showStatus(`Saved. Server running at ${result.running.localUrl}`, false);
    } else if (result.field && fields.includes(result.field)) {
      document.querySelector(`.error[data-for="${result.field}"]`).textContent = result.message;
      showStatus('Not saved: please correct the value above.', true);
    } else {
      showStatus(`Not saved: ${result.message}`, true);
    }
  } catch (err) {
    showStatus(`Not saved: ${err && err.message ? err.message : err}`, true);
  } finally {
    document.getElementById('save').disabled = false;
  }
});

document.getElementById('close').addEventListener('click', () => api.close());
