-- Closebook team workspace, schema version 2. FROZEN once released, like 001.
--
-- 1. my_grants(): the merchants (and their stores) granted to the calling login, with mode and role, so a
--    desktop picks its merchant from the login's grants instead of typing it.
-- 2. join_marks(): a desktop joining the workspace uploads the marks it already holds, once. Under one join
--    key per desktop and merchant (a retried join is answered with its first outcome), each mark is
--    applied when the server has none for the record and its month is open, agreed when the server holds
--    the same mark, and otherwise refused with the reason and the server's state; nothing is merged.
-- 3. One NOTIFY per write (not per audit row): a batch of thousands of marks wakes each listener once.
-- 4. apply_marks as in 001, with the same rules, in linear time: outcomes collected in an array (appending
--    to a jsonb list copies it each time) and a month's row looked up once per run of marks in that month
--    (it stays locked by the write's transaction, so its state cannot change in between).

SET LOCAL ROLE closebook_owner;
SET LOCAL search_path = closebook, pg_temp;

CREATE FUNCTION closebook.my_grants()
RETURNS TABLE (merchant_id text, mode text, name text, role text, stores jsonb)
LANGUAGE sql STABLE SECURITY DEFINER SET search_path = closebook, pg_temp AS $$
  SELECT m.service_merchant_id, m.mode, m.name, mem.role,
    coalesce((SELECT jsonb_agg(jsonb_build_object('storeId', s.service_store_id, 'name', s.name)
                ORDER BY s.service_store_id)
              FROM closebook.stores s WHERE s.merchant_id = m.id), '[]'::jsonb)
    FROM closebook.members mem JOIN closebook.merchants m ON m.id = mem.merchant_id
   WHERE mem.login = session_user
   ORDER BY m.service_merchant_id, m.mode
$$;

-- Appends one audit row after the merchant's last one (as in 001), without a NOTIFY: finish_write sends
-- one per write.
CREATE OR REPLACE FUNCTION closebook.append_audit(p_merchant bigint, p_action text, p_month text, p_payload jsonb)
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
  RETURN prev_seq + 1;
END
$$;

-- Records the write's outcome under its key (as in 001) and, when the write appended audit rows, sends one
-- NOTIFY naming the merchant and its new head.
CREATE OR REPLACE FUNCTION closebook.finish_write(p_merchant bigint, p_key text, p_action text, p_outcome jsonb)
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
  IF FOUND THEN
    PERFORM pg_notify('closebook_audit', p_merchant::text || ':' || head_seq::text);
  END IF;
  result := p_outcome || jsonb_build_object('key', p_key, 'auditHead', coalesce(head_seq, 0));
  INSERT INTO closebook.requests (merchant_id, key, login, action, outcome, at)
    VALUES (p_merchant, p_key, session_user, p_action, result, clock_timestamp());
  RETURN result || '{"replayed": false}';
END
$$;

-- Applies a batch of marks (as in 001): each item {kind, id, month, reconciled, note, baseVersion} applied or
-- refused on its own (month_closed, month_submitted, month_mismatch, stale) with the server's current state.
CREATE OR REPLACE FUNCTION closebook.apply_marks(p_merchant text, p_mode text, p_key text, p_marks jsonb)
RETURNS jsonb
LANGUAGE plpgsql SECURITY DEFINER SET search_path = closebook, pg_temp AS $$
DECLARE
  w record;
  item jsonb;
  cur closebook.marks;
  mon closebook.months;
  outcomes jsonb[] := '{}';
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
    IF mon.month IS DISTINCT FROM v_month THEN
      mon := closebook.month_state(w.merchant_id, v_month);
    END IF;
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
  RETURN closebook.finish_write(w.merchant_id, p_key, 'apply_marks',
    jsonb_build_object('outcomes', to_jsonb(outcomes)));
END
$$;

-- A desktop's existing marks, uploaded once when it joins. Each item: {kind, id, month, reconciled, note}.
-- Outcomes: applied (the server had no mark; version 1), same (the server holds this mark already; its
-- version), refused (month_closed, month_submitted, month_mismatch or conflict: the server holds another
-- mark) with the server's current state. At most 100000 items.
CREATE FUNCTION closebook.join_marks(p_merchant text, p_mode text, p_key text, p_marks jsonb)
RETURNS jsonb
LANGUAGE plpgsql SECURITY DEFINER SET search_path = closebook, pg_temp AS $$
DECLARE
  w record;
  item jsonb;
  cur closebook.marks;
  mon closebook.months;
  outcomes jsonb[] := '{}';
  refusal text;
  v_kind text;
  v_id text;
  v_month text;
  v_note text;
  v_rec boolean;
  seq bigint;
BEGIN
  SELECT * INTO w FROM closebook.begin_write(p_merchant, p_mode, p_key, 'join_marks',
    ARRAY['preparer', 'reviewer', 'admin']);
  IF w.replay IS NOT NULL THEN RETURN w.replay; END IF;
  IF jsonb_typeof(p_marks) IS DISTINCT FROM 'array' OR jsonb_array_length(p_marks) > 100000 THEN
    RAISE EXCEPTION 'the marks to join must be a list of at most 100000 items' USING ERRCODE = '22023';
  END IF;
  FOR item IN SELECT value FROM jsonb_array_elements(p_marks) LOOP
    v_kind := item->>'kind';
    v_id := item->>'id';
    v_month := item->>'month';
    v_note := coalesce(item->>'note', '');
    v_rec := (item->>'reconciled')::boolean;
    IF v_kind IS NULL OR v_kind NOT IN ('charge', 'refund') OR v_id IS NULL OR length(v_id) NOT BETWEEN 1 AND 200
       OR v_rec IS NULL THEN
      RAISE EXCEPTION 'mark % is malformed: kind charge|refund, id 1-200 characters, reconciled',
        left(item::text, 200) USING ERRCODE = '22023';
    END IF;
    IF length(v_note) > 20000 THEN
      RAISE EXCEPTION 'the note of % % is % characters; at most 20000', v_kind, v_id, length(v_note)
        USING ERRCODE = '22001';
    END IF;
    IF mon.month IS DISTINCT FROM v_month THEN
      mon := closebook.month_state(w.merchant_id, v_month);
    END IF;
    SELECT * INTO cur FROM closebook.marks
      WHERE merchant_id = w.merchant_id AND kind = v_kind AND record_id = v_id FOR UPDATE;
    IF cur.version IS NOT NULL AND cur.month = v_month AND cur.reconciled = v_rec AND cur.note = v_note THEN
      outcomes := outcomes || jsonb_build_object('kind', v_kind, 'id', v_id, 'status', 'same',
        'version', cur.version);
      CONTINUE;
    END IF;
    refusal := CASE
      WHEN mon.state = 'signed_off' THEN 'month_closed'
      WHEN mon.state = 'submitted' THEN 'month_submitted'
      WHEN cur.month IS NOT NULL AND cur.month <> v_month THEN 'month_mismatch'
      WHEN cur.version IS NOT NULL THEN 'conflict'
    END;
    IF refusal IS NOT NULL THEN
      outcomes := outcomes || jsonb_build_object('kind', v_kind, 'id', v_id, 'status', 'refused',
        'reason', refusal, 'monthState', mon.state, 'current', CASE WHEN cur.version IS NULL THEN NULL ELSE
        jsonb_build_object('version', cur.version, 'reconciled', cur.reconciled, 'note', cur.note,
          'month', cur.month, 'updatedBy', cur.updated_by, 'updatedAt', cur.updated_at) END);
      CONTINUE;
    END IF;
    INSERT INTO closebook.marks (merchant_id, kind, record_id, month, reconciled, note, version,
        updated_by, updated_at)
      VALUES (w.merchant_id, v_kind, v_id, v_month, v_rec, v_note, 1, session_user, clock_timestamp());
    seq := closebook.append_audit(w.merchant_id, 'mark', v_month, jsonb_build_object('kind', v_kind,
      'id', v_id, 'reconciled', v_rec, 'note', v_note, 'version', 1));
    outcomes := outcomes || jsonb_build_object('kind', v_kind, 'id', v_id, 'status', 'applied',
      'version', 1, 'seq', seq);
  END LOOP;
  RETURN closebook.finish_write(w.merchant_id, p_key, 'join_marks',
    jsonb_build_object('outcomes', to_jsonb(outcomes)));
END
$$;

REVOKE ALL ON FUNCTION closebook.my_grants(), closebook.join_marks(text, text, text, jsonb) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION closebook.my_grants(), closebook.join_marks(text, text, text, jsonb)
  TO closebook_member;
