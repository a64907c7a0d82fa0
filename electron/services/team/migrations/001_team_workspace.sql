-- Closebook team workspace, schema version 1. FROZEN: once released this file never changes (the migration
-- runner refuses a database whose recorded checksum differs); later changes go in 002_*.sql and onwards.
--
-- Trust model: accountants log in as their own PostgreSQL login (member of closebook_member). They may
-- SELECT what row-level security shows them (the merchants granted to them) and EXECUTE the write functions
-- below; they hold no INSERT/UPDATE/DELETE right on any table. The write functions run SECURITY DEFINER as
-- closebook_owner, take the actor from session_user and the time from the server clock, and decide every
-- write: a closed or submitted month, a stale version, a missing role are refused; a replayed idempotency
-- key is answered with its first outcome. The audit table is append-only (no rights, and a trigger refuses
-- UPDATE, DELETE and TRUNCATE even for its owner), numbered without gaps per merchant, and each row holds
-- the SHA-256 of the previous one.

DO $roles$
BEGIN
  IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = 'closebook_owner') THEN
    CREATE ROLE closebook_owner NOLOGIN;
  END IF;
  IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = 'closebook_member') THEN
    CREATE ROLE closebook_member NOLOGIN;
  END IF;
END
$roles$;

CREATE SCHEMA closebook AUTHORIZATION closebook_owner;
REVOKE ALL ON SCHEMA closebook FROM PUBLIC;
GRANT USAGE ON SCHEMA closebook TO closebook_member;

SET LOCAL ROLE closebook_owner;
SET LOCAL search_path = closebook, pg_temp;

CREATE TABLE closebook.schema_migrations (
  version integer PRIMARY KEY,
  name text NOT NULL,
  sha256 text NOT NULL,
  applied_at timestamptz NOT NULL DEFAULT now(),
  applied_by name NOT NULL DEFAULT session_user
);

-- A merchant as the payment service names it: its id and mode, never a desktop's connection id.
CREATE TABLE closebook.merchants (
  id bigserial PRIMARY KEY,
  service_merchant_id text NOT NULL CHECK (length(service_merchant_id) BETWEEN 1 AND 200),
  mode text NOT NULL CHECK (mode IN ('live', 'test')),
  name text NOT NULL DEFAULT '' CHECK (length(name) <= 1000),
  UNIQUE (service_merchant_id, mode)
);

CREATE TABLE closebook.stores (
  merchant_id bigint NOT NULL REFERENCES closebook.merchants,
  service_store_id text NOT NULL CHECK (length(service_store_id) BETWEEN 1 AND 200),
  name text NOT NULL DEFAULT '' CHECK (length(name) <= 1000),
  PRIMARY KEY (merchant_id, service_store_id)
);

-- Which login works on which merchant, in which role.
CREATE TABLE closebook.members (
  login name NOT NULL,
  merchant_id bigint NOT NULL REFERENCES closebook.merchants,
  role text NOT NULL CHECK (role IN ('preparer', 'reviewer', 'admin')),
  granted_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (login, merchant_id)
);

-- The reconciliation state of one charge or refund. `month` is the accounting month (in the connection's
-- time zone) the first write placed it in; later writes must name the same month.
CREATE TABLE closebook.marks (
  merchant_id bigint NOT NULL REFERENCES closebook.merchants,
  kind text NOT NULL CHECK (kind IN ('charge', 'refund')),
  record_id text NOT NULL CHECK (length(record_id) BETWEEN 1 AND 200),
  month text NOT NULL CHECK (month ~ '^[0-9]{4}-(0[1-9]|1[0-2])$'),
  reconciled boolean NOT NULL,
  note text NOT NULL DEFAULT '' CHECK (length(note) <= 20000),
  version integer NOT NULL CHECK (version >= 1),
  updated_by name NOT NULL,
  updated_at timestamptz NOT NULL,
  PRIMARY KEY (merchant_id, kind, record_id)
);

-- A month with no row is open. submitted: waiting for a reviewer, frozen. signed_off: closed.
CREATE TABLE closebook.months (
  merchant_id bigint NOT NULL REFERENCES closebook.merchants,
  month text NOT NULL CHECK (month ~ '^[0-9]{4}-(0[1-9]|1[0-2])$'),
  state text NOT NULL CHECK (state IN ('open', 'submitted', 'signed_off')),
  version integer NOT NULL CHECK (version >= 1),
  submitted_by name,
  submitted_at timestamptz,
  signed_off_by name,
  signed_off_at timestamptz,
  note text NOT NULL DEFAULT '',
  PRIMARY KEY (merchant_id, month)
);

-- The first outcome of every write, by its idempotency key.
CREATE TABLE closebook.requests (
  merchant_id bigint NOT NULL REFERENCES closebook.merchants,
  key text NOT NULL CHECK (length(key) BETWEEN 8 AND 200),
  login name NOT NULL,
  action text NOT NULL,
  outcome jsonb NOT NULL,
  at timestamptz NOT NULL,
  PRIMARY KEY (merchant_id, key)
);

CREATE TABLE closebook.audit (
  merchant_id bigint NOT NULL REFERENCES closebook.merchants,
  seq bigint NOT NULL CHECK (seq >= 1),
  at timestamptz NOT NULL,
  actor name NOT NULL,
  action text NOT NULL,
  month text,
  payload text NOT NULL,
  prev_hash text NOT NULL,
  hash text NOT NULL,
  PRIMARY KEY (merchant_id, seq)
);

-- One row per merchant: the last audit number and hash as of the last write. Every write function locks it
-- first, so writes to one merchant are serialised and the audit numbers have no gaps (a rolled-back write
-- takes no number).
CREATE TABLE closebook.audit_heads (
  merchant_id bigint PRIMARY KEY REFERENCES closebook.merchants,
  seq bigint NOT NULL,
  hash text NOT NULL
);

CREATE FUNCTION closebook.audit_refuse_change() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  RAISE EXCEPTION 'the audit trail is append-only: % refused', TG_OP USING ERRCODE = '42501';
END
$$;
CREATE TRIGGER audit_append_only BEFORE UPDATE OR DELETE ON closebook.audit
  FOR EACH ROW EXECUTE FUNCTION closebook.audit_refuse_change();
CREATE TRIGGER audit_no_truncate BEFORE TRUNCATE ON closebook.audit
  FOR EACH STATEMENT EXECUTE FUNCTION closebook.audit_refuse_change();

-- The exact text each audit row's hash covers; the desktop's verifier rebuilds the same text.
CREATE FUNCTION closebook.audit_text(
  p_prev text, p_merchant bigint, p_seq bigint, p_at timestamptz, p_actor text, p_action text,
  p_month text, p_payload text
) RETURNS text
LANGUAGE sql IMMUTABLE AS $$
  SELECT concat_ws(E'\n', p_prev, p_merchant::text, p_seq::text,
    to_char(p_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"'), p_actor, p_action,
    coalesce(p_month, ''), p_payload)
$$;

-- Appends one audit row after the merchant's last one. The caller holds the merchant's audit_heads row
-- (begin_write locks it), so no other write appends in between; the head row itself is updated once per
-- write by finish_write, not per row (updating one row thousands of times in a transaction is quadratic).
CREATE FUNCTION closebook.append_audit(p_merchant bigint, p_action text, p_month text, p_payload jsonb)
RETURNS bigint
LANGUAGE plpgsql AS $$
DECLARE
  prev_seq bigint;
  prev_hash text;
  at timestamptz := clock_timestamp();
  body text := p_payload::text;
  next_hash text;
BEGIN
  SELECT a.seq, a.hash INTO prev_seq, prev_hash FROM closebook.audit a
    WHERE a.merchant_id = p_merchant ORDER BY a.seq DESC LIMIT 1;
  IF NOT FOUND THEN
    prev_seq := 0;
    prev_hash := repeat('0', 64);
  END IF;
  next_hash := encode(sha256(convert_to(closebook.audit_text(prev_hash, p_merchant, prev_seq + 1, at,
    session_user, p_action, p_month, body), 'UTF8')), 'hex');
  INSERT INTO closebook.audit (merchant_id, seq, at, actor, action, month, payload, prev_hash, hash)
    VALUES (p_merchant, prev_seq + 1, at, session_user, p_action, p_month, body, prev_hash, next_hash);
  PERFORM pg_notify('closebook_audit', p_merchant::text || ':' || (prev_seq + 1)::text);
  RETURN prev_seq + 1;
END
$$;

-- Opens a write: finds the merchant the login is granted, locks its audit head (serialising the
-- merchant's writes) and returns the first outcome when the key was seen before.
CREATE FUNCTION closebook.begin_write(
  p_merchant text, p_mode text, p_key text, p_action text, p_roles text[],
  OUT merchant_id bigint, OUT role text, OUT replay jsonb
)
LANGUAGE plpgsql AS $$
DECLARE
  seen closebook.requests;
BEGIN
  SELECT m.id, mem.role INTO merchant_id, role
    FROM closebook.merchants m
    JOIN closebook.members mem ON mem.merchant_id = m.id AND mem.login = session_user
    WHERE m.service_merchant_id = p_merchant AND m.mode = p_mode;
  IF merchant_id IS NULL THEN
    RAISE EXCEPTION 'login % has no grant for merchant % (%)', session_user, p_merchant, p_mode
      USING ERRCODE = '42501', HINT = 'closebook:no_grant';
  END IF;
  IF p_key IS NULL OR length(p_key) NOT BETWEEN 8 AND 200 THEN
    RAISE EXCEPTION 'the idempotency key must be 8 to 200 characters' USING ERRCODE = '22023';
  END IF;
  PERFORM 1 FROM closebook.audit_heads h WHERE h.merchant_id = begin_write.merchant_id FOR UPDATE;
  SELECT * INTO seen FROM closebook.requests r
    WHERE r.merchant_id = begin_write.merchant_id AND r.key = p_key;
  IF FOUND THEN
    IF seen.login <> session_user OR seen.action <> p_action THEN
      RAISE EXCEPTION 'idempotency key already used for another write' USING ERRCODE = '22023';
    END IF;
    replay := seen.outcome || '{"replayed": true}';
    RETURN;
  END IF;
  IF NOT role = ANY (p_roles) THEN
    RAISE EXCEPTION 'login % is % for merchant %; % needs %', session_user, role, p_merchant, p_action,
      array_to_string(p_roles, ' or ') USING ERRCODE = '42501', HINT = 'closebook:missing_role';
  END IF;
END
$$;

CREATE FUNCTION closebook.finish_write(p_merchant bigint, p_key text, p_action text, p_outcome jsonb)
RETURNS jsonb
LANGUAGE plpgsql AS $$
DECLARE
  head_seq bigint;
  head_hash text;
  result jsonb;
BEGIN
  SELECT a.seq, a.hash INTO head_seq, head_hash FROM closebook.audit a
    WHERE a.merchant_id = p_merchant ORDER BY a.seq DESC LIMIT 1;
  UPDATE closebook.audit_heads h SET seq = head_seq, hash = head_hash
    WHERE h.merchant_id = p_merchant AND head_seq IS NOT NULL AND h.seq <> head_seq;
  result := p_outcome || jsonb_build_object('key', p_key, 'auditHead', coalesce(head_seq, 0));
  INSERT INTO closebook.requests (merchant_id, key, login, action, outcome, at)
    VALUES (p_merchant, p_key, session_user, p_action, result, clock_timestamp());
  RETURN result || '{"replayed": false}';
END
$$;

CREATE FUNCTION closebook.month_state(p_merchant bigint, p_month text) RETURNS closebook.months
LANGUAGE plpgsql AS $$
DECLARE
  m_row closebook.months;
BEGIN
  IF p_month IS NULL OR p_month !~ '^[0-9]{4}-(0[1-9]|1[0-2])$' THEN
    RAISE EXCEPTION 'month must be YYYY-MM, got %', coalesce(p_month, 'nothing') USING ERRCODE = '22023';
  END IF;
  INSERT INTO closebook.months (merchant_id, month, state, version)
    VALUES (p_merchant, p_month, 'open', 1) ON CONFLICT DO NOTHING;
  SELECT * INTO m_row FROM closebook.months WHERE merchant_id = p_merchant AND month = p_month FOR UPDATE;
  RETURN m_row;
END
$$;

-- Applies a batch of marks. Each item: {kind, id, month, reconciled, note, baseVersion} where baseVersion
-- is the version the desktop last saw (0: never seen). Each item is applied or refused on its own, with the
-- reason and the server's current state; nothing is merged.
CREATE FUNCTION closebook.apply_marks(p_merchant text, p_mode text, p_key text, p_marks jsonb)
RETURNS jsonb
LANGUAGE plpgsql SECURITY DEFINER SET search_path = closebook, pg_temp AS $$
DECLARE
  w record;
  item jsonb;
  cur closebook.marks;
  mon closebook.months;
  outcomes jsonb := '[]';
  refusal text;
  v_kind text;
  v_id text;
  v_month text;
  v_note text;
  v_rec boolean;
  v_base integer;
  seq bigint;
BEGIN
  SELECT * INTO w FROM closebook.begin_write(p_merchant, p_mode, p_key, 'apply_marks',
    ARRAY['preparer', 'reviewer', 'admin']);
  IF w.replay IS NOT NULL THEN RETURN w.replay; END IF;
  IF jsonb_typeof(p_marks) IS DISTINCT FROM 'array' OR jsonb_array_length(p_marks) > 5000 THEN
    RAISE EXCEPTION 'marks must be a list of at most 5000 items' USING ERRCODE = '22023';
  END IF;
  FOR item IN SELECT value FROM jsonb_array_elements(p_marks) LOOP
    v_kind := item->>'kind';
    v_id := item->>'id';
    v_month := item->>'month';
    v_note := coalesce(item->>'note', '');
    v_rec := (item->>'reconciled')::boolean;
    v_base := (item->>'baseVersion')::integer;
    IF v_kind IS NULL OR v_kind NOT IN ('charge', 'refund') OR v_id IS NULL OR length(v_id) NOT BETWEEN 1 AND 200
       OR v_rec IS NULL OR v_base IS NULL OR v_base < 0 THEN
      RAISE EXCEPTION 'mark % is malformed: kind charge|refund, id 1-200 characters, reconciled, baseVersion >= 0',
        left(item::text, 200) USING ERRCODE = '22023';
    END IF;
    IF length(v_note) > 20000 THEN
      RAISE EXCEPTION 'the note of % % is % characters; at most 20000', v_kind, v_id, length(v_note)
        USING ERRCODE = '22001';
    END IF;
    mon := closebook.month_state(w.merchant_id, v_month);
    SELECT * INTO cur FROM closebook.marks
      WHERE merchant_id = w.merchant_id AND kind = v_kind AND record_id = v_id FOR UPDATE;
    refusal := CASE
      WHEN mon.state = 'signed_off' THEN 'month_closed'
      WHEN mon.state = 'submitted' THEN 'month_submitted'
      WHEN cur.month IS NOT NULL AND cur.month <> v_month THEN 'month_mismatch'
      WHEN coalesce(cur.version, 0) <> v_base THEN 'stale'
    END;
    IF refusal IS NOT NULL THEN
      outcomes := outcomes || jsonb_build_object('kind', v_kind, 'id', v_id, 'status', 'refused',
        'reason', refusal, 'monthState', mon.state, 'current', CASE WHEN cur.version IS NULL THEN NULL ELSE
        jsonb_build_object('version', cur.version, 'reconciled', cur.reconciled, 'note', cur.note,
          'month', cur.month, 'updatedBy', cur.updated_by, 'updatedAt', cur.updated_at) END);
      CONTINUE;
    END IF;
    INSERT INTO closebook.marks AS m (merchant_id, kind, record_id, month, reconciled, note, version,
        updated_by, updated_at)
      VALUES (w.merchant_id, v_kind, v_id, v_month, v_rec, v_note, 1, session_user, clock_timestamp())
      ON CONFLICT (merchant_id, kind, record_id) DO UPDATE SET reconciled = excluded.reconciled,
        note = excluded.note, version = m.version + 1, updated_by = excluded.updated_by,
        updated_at = excluded.updated_at
      RETURNING * INTO cur;
    seq := closebook.append_audit(w.merchant_id, 'mark', v_month, jsonb_build_object('kind', v_kind,
      'id', v_id, 'reconciled', v_rec, 'note', v_note, 'version', cur.version));
    outcomes := outcomes || jsonb_build_object('kind', v_kind, 'id', v_id, 'status', 'applied',
      'version', cur.version, 'seq', seq);
  END LOOP;
  RETURN closebook.finish_write(w.merchant_id, p_key, 'apply_marks', jsonb_build_object('outcomes', outcomes));
END
$$;

-- Moves a month between states for submit, sign-off, send-back and reopen; the wrappers below fix who may.
CREATE FUNCTION closebook.change_month(
  p_merchant text, p_mode text, p_key text, p_month text, p_action text, p_roles text[], p_from text,
  p_to text, p_note text, p_base integer
) RETURNS jsonb
LANGUAGE plpgsql AS $$
DECLARE
  w record;
  mon closebook.months;
  refusal text;
BEGIN
  SELECT * INTO w FROM closebook.begin_write(p_merchant, p_mode, p_key, p_action, p_roles);
  IF w.replay IS NOT NULL THEN RETURN w.replay; END IF;
  IF length(coalesce(p_note, '')) > 20000 THEN
    RAISE EXCEPTION 'the note is % characters; at most 20000', length(p_note) USING ERRCODE = '22001';
  END IF;
  IF p_action IN ('send_back', 'reopen') AND btrim(coalesce(p_note, '')) = '' THEN
    RAISE EXCEPTION '% needs a reason', p_action USING ERRCODE = '22023';
  END IF;
  mon := closebook.month_state(w.merchant_id, p_month);
  refusal := CASE
    WHEN mon.state <> p_from THEN 'month_' || mon.state
    WHEN p_base IS NOT NULL AND p_base <> mon.version THEN 'stale'
    WHEN p_action = 'sign_off' AND mon.submitted_by = session_user THEN 'same_person'
  END;
  IF refusal IS NULL THEN
    UPDATE closebook.months SET state = p_to, version = version + 1, note = coalesce(p_note, ''),
        submitted_by = CASE WHEN p_to = 'submitted' THEN session_user WHEN p_to = 'open' THEN NULL
          ELSE submitted_by END,
        submitted_at = CASE WHEN p_to = 'submitted' THEN clock_timestamp() WHEN p_to = 'open' THEN NULL
          ELSE submitted_at END,
        signed_off_by = CASE WHEN p_to = 'signed_off' THEN session_user END,
        signed_off_at = CASE WHEN p_to = 'signed_off' THEN clock_timestamp() END
      WHERE merchant_id = w.merchant_id AND month = p_month
      RETURNING * INTO mon;
    PERFORM closebook.append_audit(w.merchant_id, p_action, p_month,
      jsonb_build_object('state', p_to, 'note', coalesce(p_note, ''), 'version', mon.version));
  END IF;
  RETURN closebook.finish_write(w.merchant_id, p_key, p_action, jsonb_build_object(
    'status', CASE WHEN refusal IS NULL THEN 'applied' ELSE 'refused' END, 'reason', refusal,
    'month', jsonb_build_object('month', mon.month, 'state', mon.state, 'version', mon.version,
      'submittedBy', mon.submitted_by, 'submittedAt', mon.submitted_at, 'signedOffBy', mon.signed_off_by,
      'signedOffAt', mon.signed_off_at, 'note', mon.note)));
END
$$;

CREATE FUNCTION closebook.submit_month(p_merchant text, p_mode text, p_key text, p_month text, p_base integer)
RETURNS jsonb LANGUAGE sql SECURITY DEFINER SET search_path = closebook, pg_temp AS $$
  SELECT closebook.change_month(p_merchant, p_mode, p_key, p_month, 'submit', ARRAY['preparer', 'admin'],
    'open', 'submitted', '', p_base)
$$;

CREATE FUNCTION closebook.sign_off(p_merchant text, p_mode text, p_key text, p_month text, p_base integer)
RETURNS jsonb LANGUAGE sql SECURITY DEFINER SET search_path = closebook, pg_temp AS $$
  SELECT closebook.change_month(p_merchant, p_mode, p_key, p_month, 'sign_off', ARRAY['reviewer', 'admin'],
    'submitted', 'signed_off', '', p_base)
$$;

CREATE FUNCTION closebook.send_back(p_merchant text, p_mode text, p_key text, p_month text, p_note text)
RETURNS jsonb LANGUAGE sql SECURITY DEFINER SET search_path = closebook, pg_temp AS $$
  SELECT closebook.change_month(p_merchant, p_mode, p_key, p_month, 'send_back', ARRAY['reviewer', 'admin'],
    'submitted', 'open', p_note, NULL)
$$;

CREATE FUNCTION closebook.reopen_month(p_merchant text, p_mode text, p_key text, p_month text, p_reason text)
RETURNS jsonb LANGUAGE sql SECURITY DEFINER SET search_path = closebook, pg_temp AS $$
  SELECT closebook.change_month(p_merchant, p_mode, p_key, p_month, 'reopen', ARRAY['reviewer', 'admin'],
    'signed_off', 'open', p_reason, NULL)
$$;

-- Administration (run by the DBA's login, never granted to members).
CREATE FUNCTION closebook.admin_grant(p_login name, p_merchant text, p_mode text, p_role text, p_name text)
RETURNS void
LANGUAGE plpgsql AS $$
DECLARE
  mid bigint;
BEGIN
  INSERT INTO closebook.merchants (service_merchant_id, mode, name) VALUES (p_merchant, p_mode, coalesce(p_name, ''))
    ON CONFLICT (service_merchant_id, mode) DO NOTHING;
  SELECT id INTO mid FROM closebook.merchants WHERE service_merchant_id = p_merchant AND mode = p_mode;
  INSERT INTO closebook.audit_heads (merchant_id, seq, hash) VALUES (mid, 0, repeat('0', 64))
    ON CONFLICT DO NOTHING;
  INSERT INTO closebook.members (login, merchant_id, role) VALUES (p_login, mid, p_role)
    ON CONFLICT (login, merchant_id) DO UPDATE SET role = excluded.role, granted_at = now();
END
$$;

-- Row-level security: a login sees only the merchants granted to it.
ALTER TABLE closebook.merchants ENABLE ROW LEVEL SECURITY;
ALTER TABLE closebook.stores ENABLE ROW LEVEL SECURITY;
ALTER TABLE closebook.members ENABLE ROW LEVEL SECURITY;
ALTER TABLE closebook.marks ENABLE ROW LEVEL SECURITY;
ALTER TABLE closebook.months ENABLE ROW LEVEL SECURITY;
ALTER TABLE closebook.audit ENABLE ROW LEVEL SECURITY;
ALTER TABLE closebook.audit_heads ENABLE ROW LEVEL SECURITY;
CREATE POLICY own_grants ON closebook.members FOR SELECT USING (login = session_user);
CREATE POLICY granted ON closebook.merchants FOR SELECT
  USING (id IN (SELECT merchant_id FROM closebook.members WHERE login = session_user));
CREATE POLICY granted ON closebook.stores FOR SELECT
  USING (merchant_id IN (SELECT merchant_id FROM closebook.members WHERE login = session_user));
CREATE POLICY granted ON closebook.marks FOR SELECT
  USING (merchant_id IN (SELECT merchant_id FROM closebook.members WHERE login = session_user));
CREATE POLICY granted ON closebook.months FOR SELECT
  USING (merchant_id IN (SELECT merchant_id FROM closebook.members WHERE login = session_user));
CREATE POLICY granted ON closebook.audit FOR SELECT
  USING (merchant_id IN (SELECT merchant_id FROM closebook.members WHERE login = session_user));
CREATE POLICY granted ON closebook.audit_heads FOR SELECT
  USING (merchant_id IN (SELECT merchant_id FROM closebook.members WHERE login = session_user));

REVOKE ALL ON ALL TABLES IN SCHEMA closebook FROM PUBLIC;
REVOKE ALL ON ALL SEQUENCES IN SCHEMA closebook FROM PUBLIC;
REVOKE ALL ON ALL FUNCTIONS IN SCHEMA closebook FROM PUBLIC;
GRANT SELECT ON closebook.schema_migrations, closebook.merchants, closebook.stores, closebook.members,
  closebook.marks, closebook.months, closebook.audit, closebook.audit_heads TO closebook_member;
GRANT EXECUTE ON FUNCTION closebook.apply_marks(text, text, text, jsonb),
  closebook.submit_month(text, text, text, text, integer),
  closebook.sign_off(text, text, text, text, integer),
  closebook.send_back(text, text, text, text, text),
  closebook.reopen_month(text, text, text, text, text),
  closebook.audit_text(text, bigint, bigint, timestamptz, text, text, text, text) TO closebook_member;
