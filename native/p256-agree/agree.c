/*
 * P-256 key agreement for sealing envelopes (/docs/envelopes: every envelope
 * has its own ephemeral key pair).
 *
 * agree(recipient, count) returns `count` records of 97 bytes each: a fresh
 * ephemeral public point (65 bytes, 0x04 || X || Y) followed by the X
 * coordinate of ephemeral_private * recipient (32 bytes), the ECDH shared
 * secret of SEC 1 v2, section 3.3.1. Each record's key pair is used for that
 * record only.
 *
 * Why not node:crypto: ECDH.computeSecret runs a full check of its own key
 * pair on every call (a scalar multiplication by the group order and a
 * pairwise check), which costs as much as the agreement itself, and
 * crypto.diffieHellman and WebCrypto check the peer's key the same way. Here
 * the recipient point is checked in full once per batch, and a key pair made
 * as below cannot fail a check, so what is left per record is one fixed-base
 * and one variable-base multiplication.
 *
 * The arithmetic is OpenSSL's EC_GROUP/EC_POINT interface, the one OpenSSL's
 * own EC key generation and ECDH derivation are built on, called directly:
 *   - key generation as OpenSSL generates an EC key (SEC 1 v2, section
 *     3.2.1): a private scalar drawn uniformly from [1, n - 1] by the private
 *     random generator (BN_priv_rand_range_ex), its public point
 *     scalar * G by EC_POINT_mul;
 *   - the shared secret as OpenSSL derives one: scalar * recipient by
 *     EC_POINT_mul, then its affine X, left-padded to 32 bytes.
 * Both multiplications run OpenSSL's constant-time P-256 code (the scalar is
 * marked BN_FLG_CONSTTIME as well). Going through EVP_PKEY instead builds a
 * key object and a derivation context per record, which costs as much again
 * as the arithmetic. No call here is deprecated in OpenSSL 3 (the addon
 * builds with -Werror=deprecated-declarations): it compiles against the
 * headers of the running Node and uses the OpenSSL that Node itself carries,
 * so its results are those of node:crypto.
 */

#include <node_api.h>
#include <openssl/bn.h>
#include <openssl/crypto.h>
#include <openssl/ec.h>
#include <openssl/err.h>
#include <openssl/obj_mac.h>
#include <stdbool.h>

#define POINT_BYTES 65
#define SECRET_BYTES 32
#define RECORD_BYTES (POINT_BYTES + SECRET_BYTES)
/* A batch is at most a few hundred envelopes; this only bounds a caller's mistake. */
#define MAX_COUNT 65536

/*
 * The group and scratch values, per loaded instance of the addon (the main
 * thread and each worker load their own, so nothing here is shared between
 * threads); made when the addon loads, freed with the agree function. The
 * scalar and the shared point's X are secrets: they live in OpenSSL's secure
 * heap where it has one and are cleared after every batch.
 */
typedef struct {
  EC_GROUP *group;
  BN_CTX *bn;
  BIGNUM *scalar;
  BIGNUM *shared_x;
  EC_POINT *ephemeral;
  EC_POINT *shared;
  EC_POINT *recipient;
  EC_POINT *check;
} agree_state;

static napi_value throw_error(napi_env env, bool type_error, const char *message) {
  /* Nothing of a failure may stay on this thread's OpenSSL error queue for Node to find. */
  ERR_clear_error();
  if (type_error) {
    napi_throw_type_error(env, "ERR_INVALID_ARG_TYPE", message);
  } else {
    napi_throw_error(env, "ERR_P256_AGREE", message);
  }
  return NULL;
}

/*
 * Reads the recipient into state->recipient; false when the bytes are not a
 * point of the group. EC_POINT_oct2point refuses coordinates that are not
 * field elements or not on the curve; the rest is the full public key check
 * of SEC 1 v2, section 3.2.2.1 (not the point at infinity, and n * Q is the
 * point at infinity, which P-256's cofactor of 1 makes certain but which
 * costs one multiplication per batch to confirm).
 */
static bool read_recipient(agree_state *state, const unsigned char *point) {
  return EC_POINT_oct2point(state->group, state->recipient, point, POINT_BYTES, state->bn) == 1 &&
         EC_POINT_is_at_infinity(state->group, state->recipient) == 0 &&
         EC_POINT_is_on_curve(state->group, state->recipient, state->bn) == 1 &&
         EC_POINT_mul(state->group, state->check, NULL, state->recipient,
                      EC_GROUP_get0_order(state->group), state->bn) == 1 &&
         EC_POINT_is_at_infinity(state->group, state->check) == 1;
}

/* One record: a fresh key pair's public point, then its secret with the recipient. */
static bool agree_one(agree_state *state, unsigned char *record) {
  const EC_GROUP *group = state->group;
  const BIGNUM *order = EC_GROUP_get0_order(group);
  do {
    if (BN_priv_rand_range_ex(state->scalar, order, 0, state->bn) != 1) return false;
  } while (BN_is_zero(state->scalar));
  return EC_POINT_mul(group, state->ephemeral, state->scalar, NULL, NULL, state->bn) == 1 &&
         EC_POINT_point2oct(group, state->ephemeral, POINT_CONVERSION_UNCOMPRESSED, record,
                            POINT_BYTES, state->bn) == POINT_BYTES &&
         EC_POINT_mul(group, state->shared, NULL, state->recipient, state->scalar, state->bn) == 1 &&
         EC_POINT_get_affine_coordinates(group, state->shared, state->shared_x, NULL, state->bn) == 1 &&
         BN_bn2binpad(state->shared_x, record + POINT_BYTES, SECRET_BYTES) == SECRET_BYTES;
}

/* Leaves no secret of the last batch in the scratch values. */
static void clear_secrets(agree_state *state) {
  BN_clear(state->scalar);
  BN_clear(state->shared_x);
  EC_POINT_set_to_infinity(state->group, state->shared);
}

static napi_value agree(napi_env env, napi_callback_info info) {
  size_t argc = 2;
  napi_value argv[2];
  agree_state *state = NULL;
  if (napi_get_cb_info(env, info, &argc, argv, NULL, (void **)&state) != napi_ok || argc != 2) {
    return throw_error(env, true, "agree(recipient, count) takes two arguments");
  }

  bool is_typed_array = false;
  napi_typedarray_type type;
  size_t length = 0;
  void *data = NULL;
  if (napi_is_typedarray(env, argv[0], &is_typed_array) != napi_ok || !is_typed_array ||
      napi_get_typedarray_info(env, argv[0], &type, &length, &data, NULL, NULL) != napi_ok ||
      type != napi_uint8_array || length != POINT_BYTES || ((unsigned char *)data)[0] != 0x04) {
    return throw_error(env, true, "recipient must be a 65-byte uncompressed P-256 point");
  }

  napi_valuetype count_type;
  double count_value = -1;
  if (napi_typeof(env, argv[1], &count_type) != napi_ok || count_type != napi_number ||
      napi_get_value_double(env, argv[1], &count_value) != napi_ok ||
      /* Written so that NaN fails here, before the conversion below could see it. */
      !(count_value >= 0 && count_value <= MAX_COUNT) ||
      count_value != (double)(uint32_t)count_value) {
    return throw_error(env, true, "count must be an integer from 0 to 65536");
  }
  uint32_t count = (uint32_t)count_value;

  if (!read_recipient(state, data)) {
    return throw_error(env, false, "recipient is not a point on P-256");
  }

  napi_value result;
  unsigned char *records = NULL;
  if (napi_create_buffer(env, (size_t)count * RECORD_BYTES, (void **)&records, &result) != napi_ok) {
    return throw_error(env, false, "out of memory");
  }
  bool ok = true;
  for (uint32_t index = 0; ok && index < count; index++) {
    ok = agree_one(state, records + (size_t)index * RECORD_BYTES);
  }
  clear_secrets(state);
  if (!ok) {
    OPENSSL_cleanse(records, (size_t)count * RECORD_BYTES);
    return throw_error(env, false, "the P-256 key agreement failed");
  }
  return result;
}

static void free_state(napi_env env, void *data, void *hint) {
  (void)env;
  (void)hint;
  agree_state *state = data;
  EC_POINT_free(state->check);
  EC_POINT_free(state->recipient);
  EC_POINT_clear_free(state->shared);
  EC_POINT_free(state->ephemeral);
  BN_clear_free(state->shared_x);
  BN_clear_free(state->scalar);
  BN_CTX_free(state->bn);
  EC_GROUP_free(state->group);
  OPENSSL_free(state);
}

static agree_state *new_state(void) {
  agree_state *state = OPENSSL_zalloc(sizeof(*state));
  if (state == NULL) return NULL;
  state->group = EC_GROUP_new_by_curve_name(NID_X9_62_prime256v1);
  state->bn = BN_CTX_secure_new();
  state->scalar = BN_secure_new();
  state->shared_x = BN_secure_new();
  if (state->group != NULL) {
    state->ephemeral = EC_POINT_new(state->group);
    state->shared = EC_POINT_new(state->group);
    state->recipient = EC_POINT_new(state->group);
    state->check = EC_POINT_new(state->group);
  }
  if (state->bn == NULL || state->scalar == NULL || state->shared_x == NULL ||
      state->ephemeral == NULL || state->shared == NULL || state->recipient == NULL ||
      state->check == NULL) {
    ERR_clear_error();
    free_state(NULL, state, NULL);
    return NULL;
  }
  BN_set_flags(state->scalar, BN_FLG_CONSTTIME);
  return state;
}

NAPI_MODULE_INIT() {
  agree_state *state = new_state();
  if (state == NULL) return NULL;
  napi_value function;
  if (napi_create_function(env, "agree", NAPI_AUTO_LENGTH, agree, state, &function) != napi_ok) {
    free_state(env, state, NULL);
    return NULL;
  }
  /* The state lives as long as the function that uses it. */
  if (napi_add_finalizer(env, function, state, free_state, NULL, NULL) != napi_ok) {
    free_state(env, state, NULL);
    return NULL;
  }
  if (napi_set_named_property(env, exports, "agree", function) != napi_ok) return NULL;
  return exports;
}
