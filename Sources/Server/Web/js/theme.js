// Applies the saved theme before the first paint (a classic script in <head>, so there is no flash).
document.documentElement.dataset.theme = localStorage.getItem('papertrade.theme') || 'system';
