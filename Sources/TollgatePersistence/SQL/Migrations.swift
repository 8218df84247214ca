import TollgateDomain
import TollgateSupport

/// One step of the schema: its name says what it does; `version` is the number a database
/// records once the step is applied. Steps are never edited once released: a change is a
/// new step at the end.
struct Migration: Sendable {
  /// The number recorded in `schema_migrations` (each engine counts its own shipped steps).
  let version: Int64
  /// `NNNN_what_it_does`, NNNN being the version.
  let name: String
  /// The statements, run in one transaction.
  let sql: String
  /// The step adds rollups that existing facts must fill: every app's rollups are rebuilt
  /// from the raw rows in the same transaction.
  var rebuildsRollups = false
}

/// The schema of each engine, as named steps. A database records the versions it has;
/// start-up applies the missing ones in order, each in its own transaction.
enum Migrations {
  /// SQLite's steps.
  static let sqlite: [Migration] = [
    Migration(version: 1, name: "0001_initial", sql: sqliteInitial),
    Migration(version: 2, name: "0002_attribution_jobs", sql: sqliteAttributionJobs),
    Migration(version: 3, name: "0003_app_store_purchases", sql: sqliteTypes(purchases)),
    Migration(version: 4, name: "0004_purchase_credit", sql: sqliteTypes(purchaseCredit)),
    Migration(version: 5, name: "0005_webhooks", sql: sqliteTypes(webhooks)),
    Migration(version: 6, name: "0006_key_labels_config_history_audit_log", sql: sqliteTypes(keysAndAudit)),
    Migration(version: 7, name: "0007_payer_revenue", sql: sqliteTypes(payerRevenue), rebuildsRollups: true),
    Migration(
      version: 8, name: "0008_subscription_days", sql: sqliteTypes(subscriptionDays), rebuildsRollups: true),
    Migration(version: 9, name: "0009_install_cohorts", sql: sqliteTypes(installCohorts), rebuildsRollups: true),
    Migration(version: 10, name: "0010_report_summaries", sql: sqliteTypes(reportSummaries), rebuildsRollups: true),
    Migration(version: 11, name: "0011_apple_ads_spend", sql: sqliteTypes(appleAdsSpend)),
    Migration(version: 12, name: "0012_assets", sql: sqliteTypes(assets)),
    Migration(version: 13, name: "0013_event_retention", sql: sqliteTypes(eventRetention)),
    Migration(version: 14, name: "0014_saved_lists", sql: sqliteTypes(savedLists)),
    Migration(version: 15, name: "0015_spend_import_skips_and_heartbeat", sql: sqliteTypes(spendImportSkips)),
    Migration(version: 16, name: "0016_app_store_server_api", sql: sqliteTypes(appStoreServerAPI)),
    Migration(version: 17, name: "0017_app_store_test_notifications", sql: sqliteTypes(appStoreTests)),
    Migration(version: 18, name: "0018_subscription_ends", sql: sqliteTypes(subscriptionEnds)),
    Migration(version: 19, name: "0019_support_tools", sql: sqliteTypes(supportTools)),
    Migration(version: 20, name: "0020_profile_imports", sql: sqliteTypes(profileImports), rebuildsRollups: true),
    Migration(version: 21, name: "0021_people_and_sessions", sql: sqliteTypes(people)),
    Migration(version: 22, name: "0022_key_scopes_and_audit_origin", sql: sqliteTypes(keyScopes)),
    Migration(version: 23, name: "0023_two_factor", sql: sqliteTypes(twoFactor)),
    Migration(version: 24, name: "0024_single_sign_on", sql: sqliteTypes(singleSignOn)),
    Migration(version: 25, name: "0025_transactions_by_token", sql: sqliteTypes(transactionsByToken)),
    Migration(version: 26, name: "0026_subscription_days_by_campaign", sql: sqliteTypes(subscriptionDaysByCampaign)),
    Migration(version: 27, name: "0027_cohort_installs", sql: sqliteTypes(cohortInstalls)),
    Migration(version: 28, name: "0028_cohort_rows_read_from_others", sql: cohortRowsReadFromOthers),
    Migration(version: 29, name: "0029_history_imports_due_in_order", sql: historyImportsDueInOrder),
  ]

  /// PostgreSQL's steps: the same tables and indexes in PostgreSQL's types (its first step
  /// shipped with the attribution jobs already in it).
  static let postgres: [Migration] = [
    Migration(version: 1, name: "0001_initial", sql: postgresInitial),
    Migration(version: 2, name: "0002_app_store_purchases", sql: postgresTypes(purchases)),
    Migration(version: 3, name: "0003_purchase_credit", sql: postgresTypes(purchaseCredit)),
    Migration(version: 4, name: "0004_webhooks", sql: postgresTypes(webhooks)),
    Migration(version: 5, name: "0005_key_labels_config_history_audit_log", sql: postgresTypes(keysAndAudit)),
    Migration(version: 6, name: "0006_payer_revenue", sql: postgresTypes(payerRevenue), rebuildsRollups: true),
    Migration(
      version: 7, name: "0007_subscription_days", sql: postgresTypes(subscriptionDays), rebuildsRollups: true),
    Migration(version: 8, name: "0008_install_cohorts", sql: postgresTypes(installCohorts), rebuildsRollups: true),
    Migration(version: 9, name: "0009_report_summaries", sql: postgresTypes(reportSummaries), rebuildsRollups: true),
    Migration(version: 10, name: "0010_apple_ads_spend", sql: postgresTypes(appleAdsSpend)),
    Migration(version: 11, name: "0011_assets", sql: postgresTypes(assets)),
    Migration(version: 12, name: "0012_event_retention", sql: postgresTypes(eventRetention)),
    Migration(version: 13, name: "0013_events_partitioned_by_month", sql: postgresEventPartitions),
    Migration(version: 14, name: "0014_saved_lists", sql: postgresTypes(savedLists)),
    Migration(version: 15, name: "0015_spend_import_skips_and_heartbeat", sql: postgresTypes(spendImportSkips)),
    Migration(version: 16, name: "0016_app_store_server_api", sql: postgresTypes(appStoreServerAPI)),
    Migration(version: 17, name: "0017_app_store_test_notifications", sql: postgresTypes(appStoreTests)),
    Migration(version: 18, name: "0018_subscription_ends", sql: postgresTypes(subscriptionEnds)),
    Migration(version: 19, name: "0019_support_tools", sql: postgresTypes(supportTools)),
    Migration(version: 20, name: "0020_profile_imports", sql: postgresTypes(profileImports), rebuildsRollups: true),
    Migration(version: 21, name: "0021_people_and_sessions", sql: postgresTypes(people)),
    Migration(version: 22, name: "0022_key_scopes_and_audit_origin", sql: postgresTypes(keyScopes)),
    Migration(version: 23, name: "0023_two_factor", sql: postgresTypes(twoFactor)),
    Migration(version: 24, name: "0024_single_sign_on", sql: postgresTypes(singleSignOn)),
    Migration(version: 25, name: "0025_transactions_by_token", sql: postgresTypes(transactionsByToken)),
    Migration(version: 26, name: "0026_subscription_days_by_campaign", sql: postgresTypes(subscriptionDaysByCampaign)),
    Migration(version: 27, name: "0027_cohort_installs", sql: postgresTypes(cohortInstalls)),
    Migration(version: 28, name: "0028_cohort_rows_read_from_others", sql: cohortRowsReadFromOthers),
    Migration(version: 29, name: "0029_history_imports_due_in_order", sql: historyImportsDueInOrder),
  ]

  static let sqliteInitial = """
    CREATE TABLE apps (
      id INTEGER PRIMARY KEY,
      name TEXT NOT NULL UNIQUE,
      revision INTEGER NOT NULL DEFAULT 0,
      created_at REAL NOT NULL
    );
    CREATE TABLE api_keys (
      hash TEXT PRIMARY KEY,
      app_id INTEGER NOT NULL REFERENCES apps(id),
      kind TEXT NOT NULL CHECK (kind IN ('public', 'secret')),
      created_at REAL NOT NULL
    );
    CREATE TABLE configs (
      app_id INTEGER NOT NULL REFERENCES apps(id),
      revision INTEGER NOT NULL,
      document BLOB NOT NULL,
      applied_at REAL NOT NULL,
      PRIMARY KEY (app_id, revision)
    );
    CREATE TABLE profiles (
      app_id INTEGER NOT NULL REFERENCES apps(id),
      id TEXT NOT NULL,
      version INTEGER NOT NULL,
      customer_user_id TEXT,
      install TEXT NOT NULL,
      custom_attributes TEXT NOT NULL,
      applied_sources TEXT NOT NULL,
      created_at REAL NOT NULL,
      updated_at REAL NOT NULL,
      PRIMARY KEY (app_id, id)
    );
    CREATE TABLE assignments (
      app_id INTEGER NOT NULL REFERENCES apps(id),
      profile_id TEXT NOT NULL,
      placement_id TEXT NOT NULL,
      audience_id TEXT NOT NULL,
      variation_id TEXT NOT NULL,
      assigned_at REAL NOT NULL,
      PRIMARY KEY (app_id, profile_id, placement_id, audience_id)
    );
    CREATE TABLE events (
      seq INTEGER PRIMARY KEY,
      app_id INTEGER NOT NULL REFERENCES apps(id),
      event_id TEXT,
      profile_id TEXT NOT NULL,
      placement_id TEXT NOT NULL,
      audience_id TEXT NOT NULL,
      variation_id TEXT NOT NULL,
      flow_id TEXT NOT NULL,
      received_at REAL NOT NULL
    );
    CREATE UNIQUE INDEX events_dedupe ON events(app_id, event_id) WHERE event_id IS NOT NULL;
    CREATE INDEX events_by_placement ON events(app_id, placement_id);
    """

  static let sqliteAttributionJobs = """
    ALTER TABLE profiles ADD COLUMN attribution TEXT NOT NULL DEFAULT '{"status":{}}';
    CREATE TABLE attribution_jobs (
      app_id INTEGER NOT NULL REFERENCES apps(id),
      profile_id TEXT NOT NULL,
      token_hash TEXT NOT NULL,
      token TEXT NOT NULL,
      status TEXT NOT NULL,
      attempts INTEGER NOT NULL DEFAULT 0,
      not_found INTEGER NOT NULL DEFAULT 0,
      next_attempt_at REAL NOT NULL,
      last_error TEXT,
      created_at REAL NOT NULL,
      updated_at REAL NOT NULL,
      PRIMARY KEY (app_id, profile_id, token_hash)
    );
    CREATE INDEX attribution_jobs_due ON attribution_jobs(status, next_attempt_at);
    """

  static let postgresInitial = """
    CREATE TABLE apps (
      id BIGSERIAL PRIMARY KEY,
      name TEXT NOT NULL UNIQUE,
      revision BIGINT NOT NULL DEFAULT 0,
      created_at DOUBLE PRECISION NOT NULL
    );
    CREATE TABLE api_keys (
      hash TEXT PRIMARY KEY,
      app_id BIGINT NOT NULL REFERENCES apps(id),
      kind TEXT NOT NULL CHECK (kind IN ('public', 'secret')),
      created_at DOUBLE PRECISION NOT NULL
    );
    CREATE TABLE configs (
      app_id BIGINT NOT NULL REFERENCES apps(id),
      revision BIGINT NOT NULL,
      document TEXT NOT NULL,
      applied_at DOUBLE PRECISION NOT NULL,
      PRIMARY KEY (app_id, revision)
    );
    CREATE TABLE profiles (
      app_id BIGINT NOT NULL REFERENCES apps(id),
      id TEXT NOT NULL,
      version BIGINT NOT NULL,
      customer_user_id TEXT,
      install TEXT NOT NULL,
      custom_attributes TEXT NOT NULL,
      applied_sources TEXT NOT NULL,
      created_at DOUBLE PRECISION NOT NULL,
      updated_at DOUBLE PRECISION NOT NULL,
      attribution TEXT NOT NULL DEFAULT '{"status":{}}',
      PRIMARY KEY (app_id, id)
    );
    CREATE TABLE assignments (
      app_id BIGINT NOT NULL REFERENCES apps(id),
      profile_id TEXT NOT NULL,
      placement_id TEXT NOT NULL,
      audience_id TEXT NOT NULL,
      variation_id TEXT NOT NULL,
      assigned_at DOUBLE PRECISION NOT NULL,
      PRIMARY KEY (app_id, profile_id, placement_id, audience_id)
    );
    CREATE TABLE events (
      seq BIGSERIAL PRIMARY KEY,
      app_id BIGINT NOT NULL REFERENCES apps(id),
      event_id TEXT,
      profile_id TEXT NOT NULL,
      placement_id TEXT NOT NULL,
      audience_id TEXT NOT NULL,
      variation_id TEXT NOT NULL,
      flow_id TEXT NOT NULL,
      received_at DOUBLE PRECISION NOT NULL
    );
    CREATE UNIQUE INDEX events_dedupe ON events(app_id, event_id) WHERE event_id IS NOT NULL;
    CREATE INDEX events_by_placement ON events(app_id, placement_id);
    CREATE TABLE attribution_jobs (
      app_id BIGINT NOT NULL REFERENCES apps(id),
      profile_id TEXT NOT NULL,
      token_hash TEXT NOT NULL,
      token TEXT NOT NULL,
      status TEXT NOT NULL,
      attempts BIGINT NOT NULL DEFAULT 0,
      not_found BIGINT NOT NULL DEFAULT 0,
      next_attempt_at DOUBLE PRECISION NOT NULL,
      last_error TEXT,
      created_at DOUBLE PRECISION NOT NULL,
      updated_at DOUBLE PRECISION NOT NULL,
      PRIMARY KEY (app_id, profile_id, token_hash)
    );
    CREATE INDEX attribution_jobs_due ON attribution_jobs(status, next_attempt_at);
    """

  // Steps written once for both engines: `{INT}`, `{REAL}` and `{SERIAL}` (an auto-numbered
  // primary key) stand for each engine's types.

  /// App Store transactions, notifications and their owners; purchases on profiles.
  static let purchases = """
    ALTER TABLE profiles ADD COLUMN purchases TEXT NOT NULL DEFAULT '{}';
    CREATE TABLE app_store_transactions (
      app_id {INT} NOT NULL REFERENCES apps(id),
      transaction_id TEXT NOT NULL,
      original_transaction_id TEXT NOT NULL,
      product_id TEXT NOT NULL,
      app_account_token TEXT,
      signed_at {REAL} NOT NULL,
      variation_id TEXT,
      payload TEXT NOT NULL,
      jws TEXT NOT NULL,
      received_at {REAL} NOT NULL,
      PRIMARY KEY (app_id, transaction_id)
    );
    CREATE INDEX app_store_transactions_by_original ON app_store_transactions(app_id, original_transaction_id);
    CREATE TABLE app_store_notifications (
      app_id {INT} NOT NULL REFERENCES apps(id),
      notification_uuid TEXT NOT NULL,
      notification_type TEXT NOT NULL,
      subtype TEXT,
      original_transaction_id TEXT,
      signed_at {REAL} NOT NULL,
      fact TEXT NOT NULL,
      payload TEXT NOT NULL,
      jws TEXT NOT NULL,
      received_at {REAL} NOT NULL,
      PRIMARY KEY (app_id, notification_uuid)
    );
    CREATE INDEX app_store_notifications_by_original ON app_store_notifications(app_id, original_transaction_id);
    CREATE TABLE app_store_owners (
      app_id {INT} NOT NULL REFERENCES apps(id),
      original_transaction_id TEXT NOT NULL,
      profile_id TEXT NOT NULL,
      linked_at {REAL} NOT NULL,
      PRIMARY KEY (app_id, original_transaction_id, profile_id)
    );
    CREATE INDEX app_store_owners_by_profile ON app_store_owners(app_id, profile_id, original_transaction_id);
    CREATE INDEX profiles_by_customer ON profiles(app_id, customer_user_id) WHERE customer_user_id IS NOT NULL;
    """

  /// Which paywall a purchase is credited to, and the rollups that count it.
  static let purchaseCredit = """
    CREATE INDEX events_by_profile ON events(app_id, profile_id, received_at);
    ALTER TABLE app_store_transactions ADD COLUMN attr_placement TEXT NOT NULL DEFAULT '';
    ALTER TABLE app_store_transactions ADD COLUMN attr_audience TEXT NOT NULL DEFAULT '';
    ALTER TABLE app_store_transactions ADD COLUMN attr_variation TEXT NOT NULL DEFAULT '';
    ALTER TABLE app_store_transactions ADD COLUMN attr_profile TEXT;
    CREATE INDEX app_store_transactions_by_profile ON app_store_transactions(app_id, attr_profile);
    CREATE TABLE stats_daily (
      app_id {INT} NOT NULL REFERENCES apps(id),
      placement_id TEXT NOT NULL,
      audience_id TEXT NOT NULL,
      variation_id TEXT NOT NULL,
      day {INT} NOT NULL,
      impressions {INT} NOT NULL DEFAULT 0,
      viewers {INT} NOT NULL DEFAULT 0,
      purchasers {INT} NOT NULL DEFAULT 0,
      trials {INT} NOT NULL DEFAULT 0,
      trial_conversions {INT} NOT NULL DEFAULT 0,
      refunds {INT} NOT NULL DEFAULT 0,
      PRIMARY KEY (app_id, placement_id, audience_id, variation_id, day)
    );
    CREATE TABLE stats_revenue (
      app_id {INT} NOT NULL REFERENCES apps(id),
      placement_id TEXT NOT NULL,
      audience_id TEXT NOT NULL,
      variation_id TEXT NOT NULL,
      day {INT} NOT NULL,
      currency TEXT NOT NULL,
      gross {INT} NOT NULL DEFAULT 0,
      refunded {INT} NOT NULL DEFAULT 0,
      transactions {INT} NOT NULL DEFAULT 0,
      PRIMARY KEY (app_id, placement_id, audience_id, variation_id, day, currency)
    );
    CREATE TABLE stats_viewers (
      app_id {INT} NOT NULL REFERENCES apps(id),
      variation_id TEXT NOT NULL,
      profile_id TEXT NOT NULL,
      placement_id TEXT NOT NULL,
      audience_id TEXT NOT NULL,
      first_day {INT} NOT NULL,
      PRIMARY KEY (app_id, variation_id, profile_id)
    );
    CREATE TABLE stats_purchasers (
      app_id {INT} NOT NULL REFERENCES apps(id),
      variation_id TEXT NOT NULL,
      profile_id TEXT NOT NULL,
      placement_id TEXT NOT NULL,
      audience_id TEXT NOT NULL,
      first_day {INT} NOT NULL,
      PRIMARY KEY (app_id, variation_id, profile_id)
    );
    CREATE TABLE stats_trials (
      app_id {INT} NOT NULL REFERENCES apps(id),
      original_transaction_id TEXT NOT NULL,
      placement_id TEXT NOT NULL,
      audience_id TEXT NOT NULL,
      variation_id TEXT NOT NULL,
      trial_day {INT},
      converted_day {INT},
      PRIMARY KEY (app_id, original_transaction_id)
    );
    CREATE TABLE first_launch_reports (
      app_id {INT} NOT NULL REFERENCES apps(id),
      profile_id TEXT NOT NULL,
      aa_flow_in_time {INT} NOT NULL,
      reported_at {REAL} NOT NULL,
      PRIMARY KEY (app_id, profile_id)
    );
    CREATE TABLE stats_aa_profiles (
      app_id {INT} NOT NULL REFERENCES apps(id),
      profile_id TEXT NOT NULL,
      day {INT} NOT NULL,
      campaign_id {INT} NOT NULL,
      ad_group_id {INT} NOT NULL,
      keyword_id {INT} NOT NULL,
      flow_in_time {INT} NOT NULL,
      purchaser {INT} NOT NULL,
      PRIMARY KEY (app_id, profile_id)
    );
    CREATE TABLE stats_apple_ads (
      app_id {INT} NOT NULL REFERENCES apps(id),
      day {INT} NOT NULL,
      campaign_id {INT} NOT NULL,
      ad_group_id {INT} NOT NULL,
      keyword_id {INT} NOT NULL,
      installs {INT} NOT NULL DEFAULT 0,
      flow_in_time {INT} NOT NULL DEFAULT 0,
      purchasers {INT} NOT NULL DEFAULT 0,
      PRIMARY KEY (app_id, day, campaign_id, ad_group_id, keyword_id)
    );
    CREATE TABLE stats_apple_ads_revenue (
      app_id {INT} NOT NULL REFERENCES apps(id),
      day {INT} NOT NULL,
      campaign_id {INT} NOT NULL,
      ad_group_id {INT} NOT NULL,
      keyword_id {INT} NOT NULL,
      currency TEXT NOT NULL,
      gross {INT} NOT NULL DEFAULT 0,
      PRIMARY KEY (app_id, day, campaign_id, ad_group_id, keyword_id, currency)
    );
    """

  /// Webhook secrets and the delivery outbox.
  static let webhooks = """
    CREATE TABLE webhook_secrets (
      app_id {INT} NOT NULL REFERENCES apps(id),
      webhook_id TEXT NOT NULL,
      sealed TEXT NOT NULL,
      created_at {REAL} NOT NULL,
      PRIMARY KEY (app_id, webhook_id)
    );
    CREATE TABLE webhook_deliveries (
      seq {SERIAL},
      app_id {INT} NOT NULL REFERENCES apps(id),
      event_id TEXT NOT NULL,
      webhook_id TEXT NOT NULL,
      profile_id TEXT NOT NULL,
      event_type TEXT NOT NULL,
      body TEXT NOT NULL,
      status TEXT NOT NULL DEFAULT 'pending',
      attempts {INT} NOT NULL DEFAULT 0,
      next_attempt_at {REAL} NOT NULL,
      lease_until {REAL} NOT NULL DEFAULT 0,
      deadline {REAL} NOT NULL,
      last_status {INT},
      last_error TEXT,
      created_at {REAL} NOT NULL,
      delivered_at {REAL},
      UNIQUE (app_id, webhook_id, event_id)
    );
    CREATE INDEX webhook_deliveries_due ON webhook_deliveries(status, next_attempt_at);
    CREATE INDEX webhook_deliveries_order ON webhook_deliveries(app_id, webhook_id, profile_id, seq);
    """

  /// Key labels, revocation and last use; who applied a configuration; the audit log.
  static let keysAndAudit = """
    ALTER TABLE api_keys ADD COLUMN label TEXT;
    ALTER TABLE api_keys ADD COLUMN revoked_at {REAL};
    ALTER TABLE api_keys ADD COLUMN last_used_at {REAL};
    ALTER TABLE configs ADD COLUMN applied_by TEXT;
    ALTER TABLE configs ADD COLUMN summary TEXT;
    CREATE TABLE audit_log (
      seq {SERIAL},
      app_id {INT} NOT NULL REFERENCES apps(id),
      at {REAL} NOT NULL,
      actor TEXT NOT NULL,
      action TEXT NOT NULL,
      detail TEXT NOT NULL
    );
    CREATE INDEX audit_log_app ON audit_log(app_id, seq);
    """

  /// What each paying viewer paid, net of refunds, per variation and currency; and per day of
  /// their first payment, the revenue model's sufficient statistics (`PayerMoments`).
  static let payerRevenue = """
    CREATE TABLE stats_payers (
      app_id {INT} NOT NULL REFERENCES apps(id),
      variation_id TEXT NOT NULL,
      profile_id TEXT NOT NULL,
      currency TEXT NOT NULL,
      placement_id TEXT NOT NULL,
      audience_id TEXT NOT NULL,
      first_day {INT} NOT NULL,
      net {INT} NOT NULL,
      PRIMARY KEY (app_id, variation_id, profile_id, currency)
    );
    CREATE TABLE stats_payer_revenue (
      app_id {INT} NOT NULL REFERENCES apps(id),
      placement_id TEXT NOT NULL,
      audience_id TEXT NOT NULL,
      variation_id TEXT NOT NULL,
      day {INT} NOT NULL,
      currency TEXT NOT NULL,
      payers {INT} NOT NULL DEFAULT 0,
      net {INT} NOT NULL DEFAULT 0,
      log_sum {INT} NOT NULL DEFAULT 0,
      log_squares {INT} NOT NULL DEFAULT 0,
      PRIMARY KEY (app_id, placement_id, audience_id, variation_id, day, currency)
    );
    """

  /// Subscriptions by day: each subscription's derived changes, and their sums by day,
  /// environment, product, currency, storefront, Apple Ads keyword and credited paywall.
  static let subscriptionDays = """
    CREATE TABLE stats_subscriptions (
      app_id {INT} NOT NULL REFERENCES apps(id),
      original_transaction_id TEXT NOT NULL,
      dimensions TEXT NOT NULL,
      changes TEXT NOT NULL,
      PRIMARY KEY (app_id, original_transaction_id)
    );
    CREATE TABLE stats_subscription_days (
      app_id {INT} NOT NULL REFERENCES apps(id),
      environment TEXT NOT NULL,
      day {INT} NOT NULL,
      product_id TEXT NOT NULL,
      currency TEXT NOT NULL,
      storefront TEXT NOT NULL,
      campaign_id {INT} NOT NULL,
      ad_group_id {INT} NOT NULL,
      keyword_id {INT} NOT NULL,
      placement_id TEXT NOT NULL,
      audience_id TEXT NOT NULL,
      variation_id TEXT NOT NULL,
      active_delta {INT} NOT NULL DEFAULT 0,
      trials_delta {INT} NOT NULL DEFAULT 0,
      new_trials {INT} NOT NULL DEFAULT 0,
      trial_conversions {INT} NOT NULL DEFAULT 0,
      new_paid {INT} NOT NULL DEFAULT 0,
      renewals {INT} NOT NULL DEFAULT 0,
      expirations {INT} NOT NULL DEFAULT 0,
      refunds {INT} NOT NULL DEFAULT 0,
      billing_retries {INT} NOT NULL DEFAULT 0,
      grace_periods {INT} NOT NULL DEFAULT 0,
      gross {INT} NOT NULL DEFAULT 0,
      refunded {INT} NOT NULL DEFAULT 0,
      gross_after_first_year {INT} NOT NULL DEFAULT 0,
      refunded_after_first_year {INT} NOT NULL DEFAULT 0,
      mrr_delta {INT} NOT NULL DEFAULT 0,
      PRIMARY KEY (app_id, environment, day, product_id, currency, storefront, campaign_id, ad_group_id, keyword_id,
        placement_id, audience_id, variation_id)
    );
    """

  /// Install cohorts: each profile's contribution, and their sums by install day, country, Apple
  /// Ads keyword, first variation shown, environment, currency and age.
  static let installCohorts = """
    CREATE TABLE stats_cohort_profiles (
      app_id {INT} NOT NULL REFERENCES apps(id),
      profile_id TEXT NOT NULL,
      dimensions TEXT NOT NULL,
      changes TEXT NOT NULL,
      PRIMARY KEY (app_id, profile_id)
    );
    CREATE TABLE stats_cohorts (
      app_id {INT} NOT NULL REFERENCES apps(id),
      install_day {INT} NOT NULL,
      country TEXT NOT NULL,
      campaign_id {INT} NOT NULL,
      ad_group_id {INT} NOT NULL,
      keyword_id {INT} NOT NULL,
      variation_id TEXT NOT NULL,
      environment TEXT NOT NULL,
      currency TEXT NOT NULL,
      age {INT} NOT NULL,
      installs {INT} NOT NULL DEFAULT 0,
      payers {INT} NOT NULL DEFAULT 0,
      trials {INT} NOT NULL DEFAULT 0,
      active_delta {INT} NOT NULL DEFAULT 0,
      net {INT} NOT NULL DEFAULT 0,
      net_after_first_year {INT} NOT NULL DEFAULT 0,
      PRIMARY KEY (app_id, install_day, country, campaign_id, ad_group_id, keyword_id, variation_id, environment,
        currency, age)
    );
    """

  /// Rollups shaped like the reports read them, so a report reads as many rows as it shows:
  /// install cohorts per segmentation and grouping of install days, at the reported ages only
  /// (replacing the per-dimension cohort rows), and the subscription changes of each day summed
  /// over every dimension (what an unfiltered subscription report reads).
  static let reportSummaries = """
    DROP TABLE stats_cohorts;
    CREATE TABLE stats_cohort_segments (
      app_id {INT} NOT NULL REFERENCES apps(id),
      segment TEXT NOT NULL,
      grain TEXT NOT NULL,
      period {INT} NOT NULL,
      value TEXT NOT NULL,
      environment TEXT NOT NULL,
      currency TEXT NOT NULL,
      age {INT} NOT NULL,
      installs {INT} NOT NULL DEFAULT 0,
      payers {INT} NOT NULL DEFAULT 0,
      trials {INT} NOT NULL DEFAULT 0,
      active_delta {INT} NOT NULL DEFAULT 0,
      net {INT} NOT NULL DEFAULT 0,
      net_after_first_year {INT} NOT NULL DEFAULT 0,
      PRIMARY KEY (app_id, segment, grain, period, value, environment, currency, age)
    );
    CREATE TABLE stats_subscription_totals (
      app_id {INT} NOT NULL REFERENCES apps(id),
      environment TEXT NOT NULL,
      day {INT} NOT NULL,
      currency TEXT NOT NULL,
      active_delta {INT} NOT NULL DEFAULT 0,
      trials_delta {INT} NOT NULL DEFAULT 0,
      new_trials {INT} NOT NULL DEFAULT 0,
      trial_conversions {INT} NOT NULL DEFAULT 0,
      new_paid {INT} NOT NULL DEFAULT 0,
      renewals {INT} NOT NULL DEFAULT 0,
      expirations {INT} NOT NULL DEFAULT 0,
      refunds {INT} NOT NULL DEFAULT 0,
      billing_retries {INT} NOT NULL DEFAULT 0,
      grace_periods {INT} NOT NULL DEFAULT 0,
      gross {INT} NOT NULL DEFAULT 0,
      refunded {INT} NOT NULL DEFAULT 0,
      gross_after_first_year {INT} NOT NULL DEFAULT 0,
      refunded_after_first_year {INT} NOT NULL DEFAULT 0,
      mrr_delta {INT} NOT NULL DEFAULT 0,
      PRIMARY KEY (app_id, environment, day, currency)
    );
    """

  /// Apple Ads spend per day and entity (campaign, ad group, keyword), the entities' names, the
  /// sealed Campaign Management API key and the importer's durable job.
  static let appleAdsSpend = """
    CREATE TABLE apple_ads_spend (
      app_id {INT} NOT NULL REFERENCES apps(id),
      level TEXT NOT NULL,
      day {INT} NOT NULL,
      campaign_id {INT} NOT NULL,
      ad_group_id {INT} NOT NULL,
      keyword_id {INT} NOT NULL,
      currency TEXT NOT NULL,
      spend {INT} NOT NULL,
      impressions {INT} NOT NULL,
      taps {INT} NOT NULL,
      tap_installs {INT} NOT NULL,
      total_installs {INT} NOT NULL,
      source TEXT NOT NULL,
      updated_at {REAL} NOT NULL,
      PRIMARY KEY (app_id, level, day, campaign_id, ad_group_id, keyword_id)
    );
    CREATE INDEX apple_ads_spend_days ON apple_ads_spend(app_id, day);
    CREATE TABLE apple_ads_names (
      app_id {INT} NOT NULL REFERENCES apps(id),
      level TEXT NOT NULL,
      entity_id {INT} NOT NULL,
      name TEXT NOT NULL,
      updated_at {REAL} NOT NULL,
      PRIMARY KEY (app_id, level, entity_id)
    );
    CREATE TABLE apple_ads_credentials (
      app_id {INT} NOT NULL PRIMARY KEY REFERENCES apps(id),
      sealed_key TEXT NOT NULL,
      key_fingerprint TEXT NOT NULL,
      created_at {REAL} NOT NULL,
      last_used_at {REAL}
    );
    CREATE TABLE apple_ads_imports (
      app_id {INT} NOT NULL PRIMARY KEY REFERENCES apps(id),
      status TEXT NOT NULL,
      next_run_at {REAL} NOT NULL,
      lease_owner TEXT,
      lease_until {REAL} NOT NULL DEFAULT 0,
      run_first_day {INT},
      run_last_day {INT},
      cursor_day {INT},
      backfilled {INT} NOT NULL DEFAULT 0,
      attempts {INT} NOT NULL DEFAULT 0,
      rows_imported {INT} NOT NULL DEFAULT 0,
      last_run_at {REAL},
      last_success_at {REAL},
      last_error TEXT,
      failure TEXT,
      updated_at {REAL} NOT NULL
    );
    """

  /// Images paywall documents reference, content-addressed by SHA-256 (base64 text: one
  /// column type on both engines).
  static let assets = """
    CREATE TABLE assets (
      sha256 TEXT NOT NULL PRIMARY KEY,
      app_id {INT} NOT NULL REFERENCES apps(id),
      media_type TEXT NOT NULL,
      width {INT} NOT NULL,
      height {INT} NOT NULL,
      size {INT} NOT NULL,
      body TEXT NOT NULL,
      created_at {REAL} NOT NULL
    );
    """

  /// Saved lists rules name with `$inGroup`: the distinct values, sorted, one a line; and per
  /// app a counter of list changes, which configuration caches compare like the revision.
  static let savedLists = """
    CREATE TABLE saved_lists (
      app_id {INT} NOT NULL REFERENCES apps(id),
      id TEXT NOT NULL,
      size {INT} NOT NULL,
      checksum TEXT NOT NULL,
      content TEXT NOT NULL,
      updated_at {REAL} NOT NULL,
      PRIMARY KEY (app_id, id)
    );
    ALTER TABLE apps ADD COLUMN lists_revision {INT} NOT NULL DEFAULT 0;
    """

  /// The spend import counts the report rows it could not read (and says the last one), and
  /// notes when its lease was last renewed: a lease nobody renews belongs to a stopped instance.
  static let spendImportSkips = """
    ALTER TABLE apple_ads_imports ADD COLUMN rows_skipped {INT} NOT NULL DEFAULT 0;
    ALTER TABLE apple_ads_imports ADD COLUMN last_skipped TEXT;
    ALTER TABLE apple_ads_imports ADD COLUMN lease_renewed_at {REAL};
    """

  /// The App Store Server API: each app's In-App Purchase key (sealed), and per app and
  /// environment the leased job that recovers notifications Apple could not deliver: the window
  /// it covers, the page it is on (a restarted run resumes there), what it recovered.
  static let appStoreServerAPI = """
    CREATE TABLE app_store_api_credentials (
      app_id {INT} NOT NULL PRIMARY KEY REFERENCES apps(id),
      sealed_key TEXT NOT NULL,
      key_fingerprint TEXT NOT NULL,
      created_at {REAL} NOT NULL
    );
    CREATE TABLE app_store_recoveries (
      app_id {INT} NOT NULL REFERENCES apps(id),
      environment TEXT NOT NULL,
      status TEXT NOT NULL,
      next_run_at {REAL} NOT NULL,
      lease_owner TEXT,
      lease_until {REAL} NOT NULL DEFAULT 0,
      run_start {REAL},
      run_end {REAL},
      page_token TEXT,
      covered_from {REAL},
      covered_to {REAL},
      recovered {INT} NOT NULL DEFAULT 0,
      already_known {INT} NOT NULL DEFAULT 0,
      refused {INT} NOT NULL DEFAULT 0,
      attempts {INT} NOT NULL DEFAULT 0,
      last_call_at {REAL},
      last_success_at {REAL},
      last_error TEXT,
      failure TEXT,
      updated_at {REAL} NOT NULL,
      PRIMARY KEY (app_id, environment)
    );
    """

  /// The setup check: an operator's request for Apple's TEST notification, what Apple
  /// answered (its token, or the error), per app; its arrival is the TEST notification received.
  static let appStoreTests = """
    CREATE TABLE app_store_tests (
      app_id {INT} NOT NULL PRIMARY KEY REFERENCES apps(id),
      environment TEXT NOT NULL,
      requested_at {REAL} NOT NULL,
      sent_at {REAL},
      token TEXT,
      error TEXT
    );
    """

  /// Reconciliation: each subscription's latest period end, and when Apple was last asked about
  /// it after that end (a period that ended with no fact since is checked once).
  static let subscriptionEnds = """
    CREATE TABLE app_store_subscription_ends (
      app_id {INT} NOT NULL REFERENCES apps(id),
      original_transaction_id TEXT NOT NULL,
      environment TEXT NOT NULL,
      period_end {REAL} NOT NULL,
      checked_at {REAL},
      PRIMARY KEY (app_id, original_transaction_id)
    );
    CREATE INDEX app_store_subscription_ends_due ON app_store_subscription_ends (app_id, environment, period_end);
    ALTER TABLE app_store_recoveries ADD COLUMN reconciled {INT} NOT NULL DEFAULT 0;
    """

  /// Raw flow views can expire (`--events-retention-days`); what reports need from them for good
  /// is kept apart first: each profile's first view (the cohort report's "first paywall shown"),
  /// backfilled from the events, and per app the time before which views may be gone.
  static let eventRetention = """
    CREATE TABLE profile_first_views (
      app_id {INT} NOT NULL REFERENCES apps(id),
      profile_id TEXT NOT NULL,
      variation_id TEXT NOT NULL,
      received_at {REAL} NOT NULL,
      seq {INT} NOT NULL,
      PRIMARY KEY (app_id, profile_id)
    );
    INSERT INTO profile_first_views (app_id, profile_id, variation_id, received_at, seq)
      SELECT app_id, profile_id, variation_id, received_at, seq FROM (
        SELECT app_id, profile_id, variation_id, received_at, seq,
          ROW_NUMBER() OVER (PARTITION BY app_id, profile_id ORDER BY received_at, seq) AS position
        FROM events) AS ranked
      WHERE position = 1;
    CREATE TABLE events_expired (
      app_id {INT} NOT NULL PRIMARY KEY REFERENCES apps(id),
      expired_before {REAL} NOT NULL
    );
    CREATE INDEX events_by_time ON events(received_at);
    """

  /// PostgreSQL keeps raw flow views in one partition per month (`events_pYYYYMM`, UTC), so
  /// the retention drops a month at once instead of deleting row by row. The table as it was
  /// becomes the partition of everything before the month after its newest row (emptied by
  /// the row-by-row retention over time); a default partition takes what no month holds. A
  /// unique index of a partitioned table must hold the partition key, so the client ids
  /// that de-duplicate views move to a table of their own.
  static let postgresEventPartitions = """
    ALTER TABLE events RENAME TO events_before_partitions;
    ALTER TABLE events_before_partitions RENAME CONSTRAINT events_pkey TO events_before_partitions_pkey;
    ALTER TABLE events_before_partitions RENAME CONSTRAINT events_app_id_fkey TO events_before_partitions_app_id_fkey;
    ALTER INDEX events_dedupe RENAME TO events_before_partitions_dedupe;
    ALTER INDEX events_by_placement RENAME TO events_before_partitions_by_placement;
    ALTER INDEX events_by_profile RENAME TO events_before_partitions_by_profile;
    ALTER INDEX events_by_time RENAME TO events_before_partitions_by_time;
    CREATE TABLE events (
      seq BIGINT NOT NULL DEFAULT nextval('events_seq_seq'),
      app_id BIGINT NOT NULL REFERENCES apps(id),
      event_id TEXT,
      profile_id TEXT NOT NULL,
      placement_id TEXT NOT NULL,
      audience_id TEXT NOT NULL,
      variation_id TEXT NOT NULL,
      flow_id TEXT NOT NULL,
      received_at DOUBLE PRECISION NOT NULL
    ) PARTITION BY RANGE (received_at);
    ALTER SEQUENCE events_seq_seq OWNED BY events.seq;
    CREATE TABLE event_ids (
      app_id BIGINT NOT NULL REFERENCES apps(id),
      event_id TEXT NOT NULL,
      received_at DOUBLE PRECISION NOT NULL,
      PRIMARY KEY (app_id, event_id)
    );
    INSERT INTO event_ids (app_id, event_id, received_at)
      SELECT app_id, event_id, received_at FROM events_before_partitions WHERE event_id IS NOT NULL;
    CREATE INDEX event_ids_by_time ON event_ids(received_at);
    CREATE TABLE event_months (starts_at DOUBLE PRECISION NOT NULL);
    DO $$
    DECLARE
      newest DOUBLE PRECISION;
      bound DOUBLE PRECISION;
    BEGIN
      SELECT GREATEST(extract(epoch FROM now()), COALESCE(MAX(received_at), 0)) INTO newest FROM events_before_partitions;
      bound := extract(epoch FROM
        (date_trunc('month', to_timestamp(newest) AT TIME ZONE 'UTC') + interval '1 month') AT TIME ZONE 'UTC');
      EXECUTE format(
        'ALTER TABLE events ATTACH PARTITION events_before_partitions FOR VALUES FROM (MINVALUE) TO (%s)', bound);
      INSERT INTO event_months (starts_at) VALUES (bound);
    END $$;
    CREATE TABLE events_default PARTITION OF events DEFAULT;
    CREATE INDEX events_by_placement ON events(app_id, placement_id);
    CREATE INDEX events_by_profile ON events(app_id, profile_id, received_at);
    CREATE INDEX events_by_time ON events(received_at);
    """

  /// Support tools: whether a notification was delivered or recovered; a customer's history
  /// refreshed from Apple (requested by an operator, the revision Apple answered kept); access
  /// levels granted by hand (kept apart from Apple's facts, part of the derivation); Apple's
  /// refund requests, the consumption information sent, and how each request closed.
  /// People who sign in to the console, their roles per app, invitations, sessions (ids
  /// stored hashed) and failed sign-ins.
  static let people = """
    CREATE TABLE people (
      id {SERIAL},
      email TEXT NOT NULL UNIQUE,
      name TEXT,
      password_hash TEXT,
      created_at {REAL} NOT NULL,
      disabled_at {REAL}
    );
    CREATE TABLE memberships (
      person_id {INT} NOT NULL REFERENCES people(id),
      app_id {INT} NOT NULL REFERENCES apps(id),
      role TEXT NOT NULL,
      PRIMARY KEY (person_id, app_id)
    );
    CREATE INDEX memberships_by_app ON memberships(app_id);
    CREATE TABLE invitations (
      token_hash TEXT PRIMARY KEY,
      email TEXT NOT NULL,
      app_id {INT} NOT NULL REFERENCES apps(id),
      role TEXT NOT NULL,
      created_at {REAL} NOT NULL,
      expires_at {REAL} NOT NULL,
      accepted_at {REAL},
      invited_by TEXT NOT NULL
    );
    CREATE INDEX invitations_by_app ON invitations(app_id, created_at);
    CREATE TABLE console_sessions (
      id_hash TEXT PRIMARY KEY,
      person_id {INT} NOT NULL REFERENCES people(id),
      csrf_token TEXT NOT NULL,
      created_at {REAL} NOT NULL,
      last_seen_at {REAL} NOT NULL,
      address TEXT NOT NULL,
      ended_at {REAL}
    );
    CREATE INDEX console_sessions_by_person ON console_sessions(person_id);
    CREATE TABLE sign_in_failures (
      key TEXT PRIMARY KEY,
      failures {INT} NOT NULL,
      last_failure {REAL},
      locked_until {REAL}
    );
    """

  /// What an admin key may do (NULL: everything) and when it stops working; where each audited
  /// action came from (the client's address, the console session).
  static let keyScopes = """
    ALTER TABLE api_keys ADD COLUMN scopes TEXT;
    ALTER TABLE api_keys ADD COLUMN expires_at {REAL};
    ALTER TABLE audit_log ADD COLUMN address TEXT;
    ALTER TABLE audit_log ADD COLUMN session TEXT;
    CREATE INDEX audit_log_by_actor ON audit_log(app_id, actor, seq);
    """

  /// TOTP second factors (secrets sealed with the secrets key), single-use recovery codes
  /// (hashed), the owner's "require two-factor sign-in" per app, and password-reset links
  /// (invitations whose purpose is `reset`).
  static let twoFactor = """
    ALTER TABLE people ADD COLUMN totp_secret TEXT;
    ALTER TABLE people ADD COLUMN totp_pending TEXT;
    ALTER TABLE people ADD COLUMN totp_last_step {INT};
    ALTER TABLE people ADD COLUMN totp_enabled_at {REAL};
    CREATE TABLE recovery_codes (
      person_id {INT} NOT NULL REFERENCES people(id),
      code_hash TEXT NOT NULL,
      used_at {REAL},
      PRIMARY KEY (person_id, code_hash)
    );
    ALTER TABLE apps ADD COLUMN require_two_factor {INT} NOT NULL DEFAULT 0;
    ALTER TABLE invitations ADD COLUMN purpose TEXT NOT NULL DEFAULT 'join';
    """

  /// Single sign-on through one OpenID Connect provider (its client secret sealed with the
  /// secrets key), sign-ins in flight (state hashed; ten minutes), people's identities at the
  /// provider, and how each console session signed in.
  static let singleSignOn = """
    CREATE TABLE sso_settings (
      id {INT} PRIMARY KEY CHECK (id = 1),
      issuer TEXT NOT NULL,
      client_id TEXT NOT NULL,
      client_secret TEXT NOT NULL,
      label TEXT NOT NULL,
      allowed_domains TEXT NOT NULL,
      default_app_id {INT} REFERENCES apps(id),
      default_role TEXT,
      updated_at {REAL} NOT NULL,
      updated_by TEXT NOT NULL
    );
    CREATE TABLE sso_requests (
      state_hash TEXT PRIMARY KEY,
      nonce TEXT NOT NULL,
      code_verifier TEXT NOT NULL,
      redirect_uri TEXT NOT NULL,
      created_at {REAL} NOT NULL
    );
    CREATE TABLE person_identities (
      issuer TEXT NOT NULL,
      subject TEXT NOT NULL,
      person_id {INT} NOT NULL REFERENCES people(id),
      created_at {REAL} NOT NULL,
      PRIMARY KEY (issuer, subject)
    );
    CREATE INDEX person_identities_by_person ON person_identities(person_id);
    ALTER TABLE console_sessions ADD COLUMN method TEXT NOT NULL DEFAULT 'password';
    """

  static let supportTools = """
    ALTER TABLE app_store_notifications ADD COLUMN origin TEXT NOT NULL DEFAULT 'delivered';
    CREATE TABLE app_store_history_refreshes (
      app_id {INT} NOT NULL REFERENCES apps(id),
      profile_id TEXT NOT NULL,
      status TEXT NOT NULL,
      requested_at {REAL} NOT NULL,
      requested_by TEXT NOT NULL,
      finished_at {REAL},
      transactions {INT} NOT NULL DEFAULT 0,
      changed {INT} NOT NULL DEFAULT 0,
      refused {INT} NOT NULL DEFAULT 0,
      production_revision TEXT,
      sandbox_revision TEXT,
      error TEXT,
      PRIMARY KEY (app_id, profile_id)
    );
    CREATE TABLE access_grants (
      id {SERIAL},
      app_id {INT} NOT NULL REFERENCES apps(id),
      profile_id TEXT NOT NULL,
      access_level TEXT NOT NULL,
      granted_at {REAL} NOT NULL,
      expires_at {REAL},
      reason TEXT NOT NULL,
      granted_by TEXT NOT NULL,
      revoked_at {REAL},
      revoked_by TEXT
    );
    CREATE INDEX access_grants_by_profile ON access_grants(app_id, profile_id);
    CREATE TABLE app_store_refund_requests (
      app_id {INT} NOT NULL REFERENCES apps(id),
      notification_uuid TEXT NOT NULL,
      transaction_id TEXT NOT NULL,
      original_transaction_id TEXT NOT NULL,
      product_id TEXT NOT NULL,
      product_type TEXT NOT NULL,
      environment TEXT NOT NULL,
      reason TEXT,
      requested_at {REAL} NOT NULL,
      received_at {REAL} NOT NULL,
      status TEXT NOT NULL,
      next_try_at {REAL} NOT NULL,
      lease_until {REAL} NOT NULL DEFAULT 0,
      attempts {INT} NOT NULL DEFAULT 0,
      answer TEXT,
      answered_at {REAL},
      last_error TEXT,
      outcome TEXT,
      closed_at {REAL},
      PRIMARY KEY (app_id, notification_uuid)
    );
    CREATE INDEX app_store_refund_requests_by_transaction ON app_store_refund_requests(app_id, transaction_id);
    CREATE INDEX app_store_refund_requests_due ON app_store_refund_requests(status, next_try_at);
    """

  /// Moving an app onto Tollgate: each profile import (its counts and the lines it refused),
  /// the profiles imports brought (the cohorts' `origin` segment and the subscription series'
  /// `origin` filter tell them from live installs: the series' table gains the column, and the
  /// rollups are rebuilt so every existing figure has its `live` row), and per
  /// imported customer with transaction ids the leased job that fetches their history from
  /// Apple (the revision reached kept, so a killed run resumes there).
  static let profileImports = """
    CREATE TABLE imported_profiles (
      app_id {INT} NOT NULL REFERENCES apps(id),
      profile_id TEXT NOT NULL,
      PRIMARY KEY (app_id, profile_id)
    );
    DROP TABLE stats_subscription_days;
    CREATE TABLE stats_subscription_days (
      app_id {INT} NOT NULL REFERENCES apps(id),
      environment TEXT NOT NULL,
      day {INT} NOT NULL,
      product_id TEXT NOT NULL,
      currency TEXT NOT NULL,
      storefront TEXT NOT NULL,
      campaign_id {INT} NOT NULL,
      ad_group_id {INT} NOT NULL,
      keyword_id {INT} NOT NULL,
      placement_id TEXT NOT NULL,
      audience_id TEXT NOT NULL,
      variation_id TEXT NOT NULL,
      origin TEXT NOT NULL,
      active_delta {INT} NOT NULL DEFAULT 0,
      trials_delta {INT} NOT NULL DEFAULT 0,
      new_trials {INT} NOT NULL DEFAULT 0,
      trial_conversions {INT} NOT NULL DEFAULT 0,
      new_paid {INT} NOT NULL DEFAULT 0,
      renewals {INT} NOT NULL DEFAULT 0,
      expirations {INT} NOT NULL DEFAULT 0,
      refunds {INT} NOT NULL DEFAULT 0,
      billing_retries {INT} NOT NULL DEFAULT 0,
      grace_periods {INT} NOT NULL DEFAULT 0,
      gross {INT} NOT NULL DEFAULT 0,
      refunded {INT} NOT NULL DEFAULT 0,
      gross_after_first_year {INT} NOT NULL DEFAULT 0,
      refunded_after_first_year {INT} NOT NULL DEFAULT 0,
      mrr_delta {INT} NOT NULL DEFAULT 0,
      PRIMARY KEY (app_id, environment, day, product_id, currency, storefront, campaign_id, ad_group_id, keyword_id,
        placement_id, audience_id, variation_id, origin)
    );
    CREATE TABLE profile_imports (
      id {SERIAL},
      app_id {INT} NOT NULL REFERENCES apps(id),
      source TEXT NOT NULL,
      started_at {REAL} NOT NULL,
      finished_at {REAL},
      lines {INT} NOT NULL DEFAULT 0,
      imported {INT} NOT NULL DEFAULT 0,
      existing {INT} NOT NULL DEFAULT 0,
      refused {INT} NOT NULL DEFAULT 0,
      histories {INT} NOT NULL DEFAULT 0,
      refusals TEXT NOT NULL DEFAULT '',
      requested_by TEXT NOT NULL
    );
    CREATE TABLE history_imports (
      app_id {INT} NOT NULL REFERENCES apps(id),
      profile_id TEXT NOT NULL,
      environment TEXT NOT NULL,
      transaction_id TEXT NOT NULL,
      status TEXT NOT NULL,
      revision TEXT,
      transactions {INT} NOT NULL DEFAULT 0,
      changed {INT} NOT NULL DEFAULT 0,
      refused {INT} NOT NULL DEFAULT 0,
      attempts {INT} NOT NULL DEFAULT 0,
      next_try_at {REAL} NOT NULL,
      lease_until {REAL} NOT NULL DEFAULT 0,
      lease_owner TEXT,
      last_error TEXT,
      created_at {REAL} NOT NULL,
      finished_at {REAL},
      PRIMARY KEY (app_id, profile_id, environment)
    );
    CREATE INDEX history_imports_due ON history_imports (status, next_try_at);
    """

  /// A purchase from the SDK looks up the subscriptions kept unowned under its appAccountToken:
  /// without an index that read every transaction of the app (111 ms a purchase at 200 000).
  static let transactionsByToken = """
    CREATE INDEX app_store_transactions_by_token ON app_store_transactions (app_id, app_account_token)
      WHERE app_account_token IS NOT NULL;
    """

  /// A subscription series filtered by a campaign (or its ad groups and keywords) reads that
  /// campaign's rows: the primary key leads with the day, so the filter read every row of the
  /// app before the range's end to sum its opening stocks (110 664 rows at 100 000
  /// subscriptions, 10 427 of them the campaign's; p99 42 ms on SQLite, 58 ms on PostgreSQL,
  /// 9–13 ms with the index).
  static let subscriptionDaysByCampaign = """
    CREATE INDEX stats_subscription_days_by_campaign ON stats_subscription_days (app_id, environment, campaign_id, day);
    """

  /// The install rows of cohort segments (installs are counted at age 0 without a currency):
  /// ranking a segmentation's values by installs reads these alone, not every age and currency
  /// of the range. Only key columns, which never change: a count going up does not touch it.
  static let cohortInstalls = """
    CREATE INDEX stats_cohort_installs ON stats_cohort_segments (app_id, segment, grain, period, value, environment)
    WHERE currency = '' AND age = 0;
    """

  /// The cohort rows other segmentations' rows already hold are no longer kept
  /// (`CohortReport.Segment.storedReads`): every install's (`none`, the sum of `origin`'s) and
  /// an organic install's campaign, ad group and keyword (its `source` row, `organic`).
  static let cohortRowsReadFromOthers = """
    DELETE FROM stats_cohort_segments
    WHERE segment = 'none' OR (segment IN ('campaign', 'ad_group', 'keyword') AND value = 'organic');
    """

  /// A history import's claim reads due customers in the index's order, so it stops at its
  /// limit: the index ordered them by due time alone, and every claim sorted all pending jobs.
  static let historyImportsDueInOrder = """
    DROP INDEX history_imports_due;
    CREATE INDEX history_imports_due ON history_imports (status, next_try_at, app_id, profile_id, environment);
    """

  static func sqliteTypes(_ step: String) -> String {
    step.replacingOccurrences(of: "{SERIAL}", with: "INTEGER PRIMARY KEY")
      .replacingOccurrences(of: "{INT}", with: "INTEGER").replacingOccurrences(of: "{REAL}", with: "REAL")
  }

  static func postgresTypes(_ step: String) -> String {
    step.replacingOccurrences(of: "{SERIAL}", with: "BIGSERIAL PRIMARY KEY")
      .replacingOccurrences(of: "{INT}", with: "BIGINT").replacingOccurrences(of: "{REAL}", with: "DOUBLE PRECISION")
  }
}
