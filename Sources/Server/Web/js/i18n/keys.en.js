// The API keys card of Settings in English: loaded with it (views/keys.js), not with the shell.
export default {
  'keys.title': 'API keys',
  'keys.intro': 'Keys let a bot trade {name} through the Alpaca API (alpaca-py, Alpaca\'s SDKs, your own code).',
  'keys.create': 'Create key',
  'keys.created_toast': 'Key created',
  'keys.secret_once': 'The secret is shown only now: copy it before you leave this page.',
  'keys.key_id': 'Key ID',
  'keys.secret': 'Secret',
  'keys.connect': 'Point the bot at {url} (its paper-trading URL) with this key ID and secret.',
  'keys.created': 'Created {time}',
  'keys.none': 'No keys yet.',
  'keys.revoke': 'Revoke',
  'keys.revoke_named': 'Revoke key {key}',
  'keys.revoke_confirm': 'Revoke {key}? A bot using it is refused from its next request. This cannot be undone.',
  'keys.revoked': 'Key {key} revoked',
};
