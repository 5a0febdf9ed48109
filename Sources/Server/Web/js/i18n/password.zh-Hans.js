// The first log-in's password change in Chinese: loaded with that screen (views/password.js), not with the shell.
export default {
  'password.title': '设置自己的密码',
  'password.hint': '您用老师发的密码登录。开始之前，请设置一个只有您知道的密码。',
  'password.current': '老师发的密码',
  'password.new': '新密码',
  'password.again': '再次输入新密码',
  'password.submit': '保存并继续',
  'password.mismatch': '两次输入的新密码不一致',
  'password.wrong': '老师发的密码不正确',
};
