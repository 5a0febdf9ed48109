// Applies the saved theme before the first paint (a classic script in <head>, so there is no flash):
// data-theme is the choice (system, light, dark), data-scheme what it resolves to, which the CSS reads;
// data-colors is green-up or red-up (the mainland Chinese convention, the default when the app is in Chinese).
(function () {
  const root = document.documentElement;
  const dark = window.matchMedia('(prefers-color-scheme: dark)');
  function apply() {
    const theme = localStorage.getItem('papertrade.theme') || 'system';
    root.dataset.theme = theme;
    root.dataset.scheme = theme === 'system' ? (dark.matches ? 'dark' : 'light') : theme;
    root.dataset.colors = localStorage.getItem('papertrade.colors')
      || (localStorage.getItem('papertrade.language') === 'zh-Hans' ? 'red-up' : 'green-up');
  }
  apply();
  dark.addEventListener('change', apply);
  document.addEventListener('papertrade:theme', apply); // store.js dispatches it when the choice changes
})();
