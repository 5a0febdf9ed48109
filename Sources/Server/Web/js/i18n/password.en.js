// The first log-in's password change in English: loaded with that screen (views/password.js), not with the shell.
export default {
  'password.title': 'Choose your own password',
  'password.hint': 'You logged in with a password your teacher handed out. Choose one only you know before you start.',
  'password.current': 'Password you were given',
  'password.new': 'New password',
  'password.again': 'New password again',
  'password.submit': 'Save and continue',
  'password.mismatch': 'The two new passwords differ',
  'password.wrong': 'The password you were given is not this one',
};
