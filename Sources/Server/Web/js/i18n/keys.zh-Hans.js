// 设置中的“API 密钥”卡片（中文）：随该卡片加载（views/keys.js），不在应用外壳内。
export default {
  'keys.title': 'API 密钥',
  'keys.intro': '密钥让程序通过 Alpaca API（alpaca-py、Alpaca 的 SDK 或你自己的代码）交易 {name}。',
  'keys.create': '创建密钥',
  'keys.created_toast': '密钥已创建',
  'keys.secret_once': '密钥只在此时显示：离开本页前请复制保存。',
  'keys.key_id': '密钥 ID',
  'keys.secret': '密钥',
  'keys.connect': '让程序连接 {url}（模拟交易网址），并使用此密钥 ID 和密钥。',
  'keys.created': '创建于 {time}',
  'keys.none': '还没有密钥。',
  'keys.revoke': '撤销',
  'keys.revoke_named': '撤销密钥 {key}',
  'keys.revoke_confirm': '撤销 {key}？使用它的程序将从下一次请求起被拒绝。此操作无法撤回。',
  'keys.revoked': '密钥 {key} 已撤销',
};
