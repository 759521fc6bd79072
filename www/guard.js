// guard.js: a classic script that runs before the page's modules. If the browser refuses a
// module script of the page — its bytes fail the page's Subresource Integrity digest (a tampered
// or half-deployed file), or it cannot be loaded at all — no module code runs; this shows a plain
// error instead of a page stuck on "Loading". On the study page it fills the error panel; in the
// embed it writes into every <chsr-search> element that never started.
'use strict';
(function guard() {
  const MESSAGES = {
    en: 'The search could not start: a file of this site could not be loaded or does not match the published '
      + 'version (it failed its integrity check), so it was not run. Reload the page; if this persists, the site '
      + 'is being updated or a file was altered.',
    fr: 'La recherche n’a pas pu démarrer : un fichier du site n’a pas pu être chargé ou ne correspond pas à la '
      + 'version publiée (contrôle d’intégrité échoué), il n’a donc pas été exécuté. Rechargez la page ; si le '
      + 'problème persiste, le site est en cours de mise à jour ou un fichier a été modifié.',
  };
  const lang = () => {
    let saved = null;
    try { saved = window.localStorage.getItem('chsr.ui'); } catch { /* private mode */ }
    const wanted = saved || document.documentElement.lang || navigator.language || 'en';
    return String(wanted).toLowerCase().startsWith('fr') ? 'fr' : 'en';
  };
  function show() {
    const text = MESSAGES[lang()];
    document.body.dataset.loadError = 'true';
    const panel = document.getElementById('error');
    const p = document.getElementById('error-text');
    if (panel && p) {
      p.textContent = text;
      panel.hidden = false;
      const retry = document.getElementById('error-retry');
      if (retry) retry.addEventListener('click', () => window.location.reload());
      const status = document.getElementById('status');
      if (status) status.textContent = '';
    }
    for (const e of document.querySelectorAll('chsr-search')) {
      if (customElements.get('chsr-search')) continue;
      e.setAttribute('data-state', 'error');
      e.setAttribute('role', 'alert');
      e.textContent = text;
    }
  }
  document.addEventListener('error', (event) => {
    const t = event.target;
    if (!(t instanceof HTMLScriptElement) || t.type !== 'module') return;
    if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', show, { once: true });
    else show();
  }, true);
}());
