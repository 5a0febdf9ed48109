@_exported import struct Storage.APIKeyRecord
// The records the brokerage's callers read and write. They are values defined next to the SQL that stores them;
// only these types are re-exported, so a surface above the brokerage (Server, the CLI) can name a `UserRecord`
// without importing Storage — and cannot reach the database itself (scripts/check-layering.sh checks the imports).
@_exported import struct Storage.AccountRecord
@_exported import struct Storage.ActivityQuery
@_exported import struct Storage.AlertRecord
@_exported import struct Storage.AlertTriggerRecord
@_exported import struct Storage.CheckpointPolicy
@_exported import enum Storage.DatabaseLocation
@_exported import struct Storage.Delivery
@_exported import struct Storage.DueDelivery
@_exported import struct Storage.GamePlayerRecord
@_exported import struct Storage.GameRecord
@_exported import struct Storage.GameSettings
@_exported import enum Storage.GameVisibility
@_exported import struct Storage.NotificationRecord
@_exported import struct Storage.OrderQuery
@_exported import enum Storage.PortfolioVisibility
@_exported import struct Storage.PushSubscriptionRecord
@_exported import struct Storage.QueueRuleRecord
@_exported import struct Storage.UserID
@_exported import struct Storage.UserRecord
@_exported import struct Storage.WatchlistRecord
@_exported import struct Storage.WebhookRecord
