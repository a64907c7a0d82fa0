-- Closebook team workspace, schema version 3. FROZEN once released, like 001 and 002.
--
-- A sign-off carries the month's payout closing as the signer's Month-end computed it: per currency the
-- closing, per transfer paid by the month's end its ledgers less its amount, and the transfers in a
-- repayment (the desktop's PayoutCloseRecord). It is written into the sign-off's audit row, so it is part
-- of the hash chain, and every desktop that pulls the row keeps it with its lock: the next month's opening
-- is checked against it there too, as after a close made on one desktop.
-- 1. valid_payout_close(): the shape the server accepts (integers only, bounded sizes).
-- 2. change_month() with the sign-off's details; the 10-argument form of 001 calls it with none.
-- 3. sign_off() with a payout closing (NULL: none, as the 5-argument form of 001).

SET LOCAL ROLE closebook_owner;
SET LOCAL search_path = closebook, pg_temp;

-- Whether `p` is a payout closing: {closing: {currency: integer}, paidDifferences: {transfer: integer},
-- readInFull?: [text]}, integers within ±(2^53 - 1), at most 1 MB of JSON.
CREATE FUNCTION closebook.valid_payout_close(p jsonb)
RETURNS boolean
LANGUAGE plpgsql IMMUTABLE AS $$
DECLARE
  part text;
  v jsonb;
BEGIN
  IF jsonb_typeof(p) IS DISTINCT FROM 'object' OR octet_length(p::text) > 1048576 THEN RETURN false; END IF;
  IF EXISTS (SELECT 1 FROM jsonb_object_keys(p) k WHERE k NOT IN ('closing', 'paidDifferences', 'readInFull')) THEN
    RETURN false;
  END IF;
  FOREACH part IN ARRAY ARRAY['closing', 'paidDifferences'] LOOP
    IF jsonb_typeof(p->part) IS DISTINCT FROM 'object' THEN RETURN false; END IF;
    FOR v IN SELECT value FROM jsonb_each(p->part) LOOP
      IF jsonb_typeof(v) IS DISTINCT FROM 'number' OR (v::text)::numeric <> trunc((v::text)::numeric)
         OR abs((v::text)::numeric) > 9007199254740991 THEN
        RETURN false;
      END IF;
    END LOOP;
  END LOOP;
  IF p ? 'readInFull' THEN
    IF jsonb_typeof(p->'readInFull') IS DISTINCT FROM 'array' THEN RETURN false; END IF;
    IF EXISTS (SELECT 1 FROM jsonb_array_elements(p->'readInFull') e
                WHERE jsonb_typeof(e) IS DISTINCT FROM 'string' OR length(e #>> '{}') > 200) THEN
      RETURN false;
    END IF;
  END IF;
  RETURN true;
END
$$;

-- As change_month in 001, with `p_details` added to the audit row's payload (NULL: nothing added).
CREATE FUNCTION closebook.change_month(
  p_merchant text, p_mode text, p_key text, p_month text, p_action text, p_roles text[], p_from text,
  p_to text, p_note text, p_base integer, p_details jsonb
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
      jsonb_build_object('state', p_to, 'note', coalesce(p_note, ''), 'version', mon.version)
        || coalesce(p_details, '{}'::jsonb));
  END IF;
  RETURN closebook.finish_write(w.merchant_id, p_key, p_action, jsonb_build_object(
    'status', CASE WHEN refusal IS NULL THEN 'applied' ELSE 'refused' END, 'reason', refusal,
    'month', jsonb_build_object('month', mon.month, 'state', mon.state, 'version', mon.version,
      'submittedBy', mon.submitted_by, 'submittedAt', mon.submitted_at, 'signedOffBy', mon.signed_off_by,
      'signedOffAt', mon.signed_off_at, 'note', mon.note)));
END
$$;

CREATE OR REPLACE FUNCTION closebook.change_month(
  p_merchant text, p_mode text, p_key text, p_month text, p_action text, p_roles text[], p_from text,
  p_to text, p_note text, p_base integer
) RETURNS jsonb
LANGUAGE sql AS $$
  SELECT closebook.change_month(p_merchant, p_mode, p_key, p_month, p_action, p_roles, p_from, p_to, p_note,
    p_base, NULL::jsonb)
$$;

CREATE FUNCTION closebook.sign_off(
  p_merchant text, p_mode text, p_key text, p_month text, p_base integer, p_close jsonb
) RETURNS jsonb
LANGUAGE plpgsql SECURITY DEFINER SET search_path = closebook, pg_temp AS $$
BEGIN
  IF p_close IS NOT NULL AND NOT closebook.valid_payout_close(p_close) THEN
    RAISE EXCEPTION 'the payout closing is malformed: closing and paidDifferences map names to integers, readInFull lists transfer ids, at most 1 MB'
      USING ERRCODE = '22023';
  END IF;
  RETURN closebook.change_month(p_merchant, p_mode, p_key, p_month, 'sign_off', ARRAY['reviewer', 'admin'],
    'submitted', 'signed_off', '', p_base,
    CASE WHEN p_close IS NULL THEN NULL ELSE jsonb_build_object('payoutClose', p_close) END);
END
$$;

REVOKE ALL ON FUNCTION closebook.valid_payout_close(jsonb),
  closebook.change_month(text, text, text, text, text, text[], text, text, text, integer, jsonb),
  closebook.sign_off(text, text, text, text, integer, jsonb) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION closebook.sign_off(text, text, text, text, integer, jsonb) TO closebook_member;
