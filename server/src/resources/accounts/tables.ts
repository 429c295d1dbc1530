// Tables of the accounts family: single-use account tokens (signup activation, credential
// change) and applications (API keys).
import type { Generated } from 'kysely';

export interface AccountTokensTable {
  id: Generated<number>;
  user_id: number;
  /** 'activation' | 'change' */
  purpose: string;
  /** SHA-256 of the uuid sent by mail (the uuid itself is never stored). */
  token_hash: string;
  expires: string;
  used: string | null;
  created: string;
}

export interface ApplicationsTable {
  id: Generated<number>;
  name: string;
  description: string | null;
  api_key: string;
  /** SHA-256 of the client secret, which is shown once, on creation. */
  client_secret_hash: string;
  enabled: boolean | number;
  created: string;
  modified: string;
  /** When its key or token last made a request (migration 0123; at most a minute late). */
  last_used: string | null;
}

/** One-time login codes of `auth_provider: otp` (migration 0120). */
export interface OtpCodesTable {
  id: Generated<number>;
  code_hash: string;
  username_key: string;
  user_id: number | null;
  token_hash: string | null;
  expires: string;
  used: string | null;
  created: string;
}

/** Identities of external login providers (`auth_provider: uuid`) and the accounts they opened. */
export interface ExternalAuthTable {
  id: Generated<number>;
  user_id: number;
  auth_provider: string;
  provider_username: string;
  created: string;
}

export interface AccountsTables {
  account_tokens: AccountTokensTable;
  applications: ApplicationsTable;
  otp_codes: OtpCodesTable;
  external_auth: ExternalAuthTable;
}
