// The brokerage's records (users, accounts, keys, watchlists, notifications and deliveries, games, rules, alerts) are
// values of BrokerageModel, which the surfaces above the brokerage read and write through it. They belong to the
// brokerage, not to the database: Storage implements BrokerageModel's repositories, and nothing above the brokerage
// imports Storage or names one of its types (scripts/check-layering.sh checks both).
@_exported import BrokerageModel
