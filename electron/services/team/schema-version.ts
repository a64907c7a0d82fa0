/** The team schema this Closebook speaks: the number of frozen migration files it ships. */
export const TEAM_SCHEMA_VERSION = 3
