/*
 * P-256 key agreement for sealing envelopes (/docs/envelopes: every envelope
 * has its own ephemeral key pair).
 *
 * agree(recipient, count) returns `count` records of 97 bytes each: a fresh
 * ephemeral public point (65 bytes, 0x04 || X || Y) followed by the X
 * coordinate of ephemeral_private * recipient (32 bytes), the ECDH shared
 * secret of SEC 1 v2, section 3.3.1. Each record's key pair is made by
 * OpenSSL's own key generation and used for that record only.
 *
 * Why not node:crypto: ECDH.computeSecret runs a full check of its own key
 * pair on every call (a scalar multiplication by the group order and a
 * pairwise check), which costs as much as the agreement itself, and
 * crypto.diffieHellman and WebCrypto check the peer's key the same way. Here
 * the recipient point is checked once per batch (a 65-byte uncompressed
 * point on the curve; P-256's cofactor is 1, so that is a point of the
 * group), and a key pair that OpenSSL has just generated cannot fail a
 * check: what is left per record is one fixed-base and one variable-base
 * multiplication, both OpenSSL's constant-time P-256 code.
 *
 * The addon compiles against the headers of the running Node and uses the
 * OpenSSL that Node itself carries, so its results are those of node:crypto.
 */

/* EC_KEY is deprecated in OpenSSL 3 but fully supported; Node uses it itself. */
#define OPENSSL_API_COMPAT 0x10100000L
#include <node_api.h>
#include <openssl/crypto.h>
#include <openssl/ec.h>
#include <openssl/ecdh.h>
#include <openssl/err.h>
#include <openssl/obj_mac.h>
#include <stdbool.h>

#define POINT_BYTES 65
#define SECRET_BYTES 32
#define RECORD_BYTES (POINT_BYTES + SECRET_BYTES)
/* A batch is at most a few hundred envelopes; this only bounds a caller's mistake. */
#define MAX_COUNT 65536

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

static napi_value agree(napi_env env, napi_callback_info info) {
  size_t argc = 2;
  napi_value argv[2];
  if (napi_get_cb_info(env, info, &argc, argv, NULL, NULL) != napi_ok || argc != 2) {
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

  EC_KEY *key = EC_KEY_new_by_curve_name(NID_X9_62_prime256v1);
  const EC_GROUP *group = key ? EC_KEY_get0_group(key) : NULL;
  EC_POINT *recipient = group ? EC_POINT_new(group) : NULL;
  if (recipient == NULL) {
    EC_KEY_free(key);
    return throw_error(env, false, "out of memory");
  }
  /* oct2point refuses coordinates that are not on the curve. */
  if (EC_POINT_oct2point(group, recipient, data, POINT_BYTES, NULL) != 1 ||
      EC_POINT_is_at_infinity(group, recipient) || EC_POINT_is_on_curve(group, recipient, NULL) != 1) {
    EC_POINT_free(recipient);
    EC_KEY_free(key);
    return throw_error(env, false, "recipient is not a point on P-256");
  }

  napi_value result;
  unsigned char *records = NULL;
  if (napi_create_buffer(env, (size_t)count * RECORD_BYTES, (void **)&records, &result) != napi_ok) {
    EC_POINT_free(recipient);
    EC_KEY_free(key);
    return throw_error(env, false, "out of memory");
  }
  bool ok = true;
  for (uint32_t index = 0; ok && index < count; index++) {
    unsigned char *record = records + (size_t)index * RECORD_BYTES;
    ok = EC_KEY_generate_key(key) == 1 &&
         EC_POINT_point2oct(group, EC_KEY_get0_public_key(key), POINT_CONVERSION_UNCOMPRESSED,
                            record, POINT_BYTES, NULL) == POINT_BYTES &&
         ECDH_compute_key(record + POINT_BYTES, SECRET_BYTES, recipient, key, NULL) == SECRET_BYTES;
  }
  EC_POINT_free(recipient);
  /* Clears the last ephemeral private key. */
  EC_KEY_free(key);
  if (!ok) {
    OPENSSL_cleanse(records, (size_t)count * RECORD_BYTES);
    return throw_error(env, false, "the P-256 key agreement failed");
  }
  return result;
}

NAPI_MODULE_INIT() {
  napi_value function;
  if (napi_create_function(env, "agree", NAPI_AUTO_LENGTH, agree, NULL, &function) != napi_ok ||
      napi_set_named_property(env, exports, "agree", function) != napi_ok) {
    return NULL;
  }
  return exports;
}
