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
 * point on the curve, imported and then checked by EVP_PKEY_public_check;
 * P-256's cofactor is 1, so that is a point of the group), and a key pair
 * that OpenSSL has just generated cannot fail a check: each record's
 * derivation therefore sets the peer without validation, and what is left
 * per record is one fixed-base and one variable-base multiplication, both
 * OpenSSL's constant-time P-256 code.
 *
 * Only OpenSSL 3's EVP interface is used (no deprecated EC_KEY or ECDH
 * calls): the addon compiles against the headers of the running Node and
 * uses the OpenSSL that Node itself carries, so its results are those of
 * node:crypto.
 */

#include <node_api.h>
#include <openssl/core_names.h>
#include <openssl/crypto.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/params.h>
#include <stdbool.h>

#define POINT_BYTES 65
#define SECRET_BYTES 32
#define RECORD_BYTES (POINT_BYTES + SECRET_BYTES)
/* A batch is at most a few hundred envelopes; this only bounds a caller's mistake. */
#define MAX_COUNT 65536

/*
 * One key generation context for P-256 per loaded instance of the addon (the
 * main thread and each worker load their own), made when the addon loads and
 * reused for every ephemeral key pair; freed with the agree function.
 */
typedef struct {
  EVP_PKEY_CTX *keygen;
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
 * The recipient as an EVP_PKEY, or NULL when the bytes are not a point of
 * P-256. The import decodes the point (refusing coordinates off the curve);
 * EVP_PKEY_public_check then checks it again in full, once per batch, since
 * the derivations below do not.
 */
static EVP_PKEY *import_recipient(const unsigned char *point) {
  char group[] = "prime256v1";
  OSSL_PARAM params[] = {
      OSSL_PARAM_construct_utf8_string(OSSL_PKEY_PARAM_GROUP_NAME, group, 0),
      OSSL_PARAM_construct_octet_string(OSSL_PKEY_PARAM_PUB_KEY, (void *)point, POINT_BYTES),
      OSSL_PARAM_construct_end(),
  };
  EVP_PKEY *recipient = NULL;
  EVP_PKEY_CTX *ctx = EVP_PKEY_CTX_new_from_name(NULL, "EC", NULL);
  bool ok = ctx != NULL && EVP_PKEY_fromdata_init(ctx) == 1 &&
            EVP_PKEY_fromdata(ctx, &recipient, EVP_PKEY_PUBLIC_KEY, params) == 1;
  EVP_PKEY_CTX_free(ctx);
  if (ok) {
    ctx = EVP_PKEY_CTX_new_from_pkey(NULL, recipient, NULL);
    ok = ctx != NULL && EVP_PKEY_public_check(ctx) == 1;
    EVP_PKEY_CTX_free(ctx);
  }
  if (!ok) {
    EVP_PKEY_free(recipient);
    return NULL;
  }
  return recipient;
}

/* One record: a fresh key pair's public point, then its secret with the recipient. */
static bool agree_one(EVP_PKEY_CTX *keygen, EVP_PKEY *recipient, unsigned char *record) {
  EVP_PKEY *ephemeral = NULL;
  if (EVP_PKEY_keygen(keygen, &ephemeral) != 1) return false;
  size_t point_length = 0;
  size_t secret_length = SECRET_BYTES;
  EVP_PKEY_CTX *derive = NULL;
  bool ok = EVP_PKEY_get_octet_string_param(ephemeral, OSSL_PKEY_PARAM_PUB_KEY, record,
                                            POINT_BYTES, &point_length) == 1 &&
            point_length == POINT_BYTES && record[0] == 0x04 &&
            (derive = EVP_PKEY_CTX_new_from_pkey(NULL, ephemeral, NULL)) != NULL &&
            EVP_PKEY_derive_init(derive) == 1 &&
            /* 0: no validation of the peer, checked once in import_recipient. */
            EVP_PKEY_derive_set_peer_ex(derive, recipient, 0) == 1 &&
            EVP_PKEY_derive(derive, record + POINT_BYTES, &secret_length) == 1 &&
            secret_length == SECRET_BYTES;
  EVP_PKEY_CTX_free(derive);
  /* Clears the ephemeral private key. */
  EVP_PKEY_free(ephemeral);
  return ok;
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

  EVP_PKEY *recipient = import_recipient(data);
  if (recipient == NULL) {
    return throw_error(env, false, "recipient is not a point on P-256");
  }

  napi_value result;
  unsigned char *records = NULL;
  if (napi_create_buffer(env, (size_t)count * RECORD_BYTES, (void **)&records, &result) != napi_ok) {
    EVP_PKEY_free(recipient);
    return throw_error(env, false, "out of memory");
  }
  bool ok = true;
  for (uint32_t index = 0; ok && index < count; index++) {
    ok = agree_one(state->keygen, recipient, records + (size_t)index * RECORD_BYTES);
  }
  EVP_PKEY_free(recipient);
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
  EVP_PKEY_CTX_free(state->keygen);
  OPENSSL_free(state);
}

NAPI_MODULE_INIT() {
  agree_state *state = OPENSSL_zalloc(sizeof(*state));
  if (state == NULL) return NULL;
  state->keygen = EVP_PKEY_CTX_new_from_name(NULL, "EC", NULL);
  if (state->keygen == NULL || EVP_PKEY_keygen_init(state->keygen) != 1 ||
      EVP_PKEY_CTX_set_group_name(state->keygen, "P-256") != 1) {
    ERR_clear_error();
    free_state(env, state, NULL);
    return NULL;
  }
  napi_value function;
  if (napi_create_function(env, "agree", NAPI_AUTO_LENGTH, agree, state, &function) != napi_ok) {
    free_state(env, state, NULL);
    return NULL;
  }
  /* The context lives as long as the function that uses it. */
  if (napi_add_finalizer(env, function, state, free_state, NULL, NULL) != napi_ok) {
    free_state(env, state, NULL);
    return NULL;
  }
  if (napi_set_named_property(env, exports, "agree", function) != napi_ok) return NULL;
  return exports;
}
