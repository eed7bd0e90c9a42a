/* json: what both JSON readers (network and plan) need on top of cJSON: a
 * whole-document parse that checks the JSON grammar itself (with line:column and
 * the reason), exact 64-bit integers, duplicate keys. */
#ifndef SPADMAP_JSON_H
#define SPADMAP_JSON_H

#include <cjson/cJSON.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "status.h"

enum {
  JSON_MAX_DEPTH = 1000,         /* nested arrays/objects (cJSON's own limit) */
  JSON_MAX_VALUES = 16 * 1024 * 1024 /* values in one document: bounds cJSON's memory (~64 bytes each) */
};

/* Parses text as exactly one RFC 8259 JSON document (UTF-8, an optional BOM).
 * Errors say "label:line:col: malformed JSON: why": a control byte or NUL
 * outside or inside a string, a bad escape (\uZZZZ, a lone surrogate, \u0000),
 * invalid UTF-8, a malformed number or literal, nesting deeper than
 * JSON_MAX_DEPTH, more than JSON_MAX_VALUES values, text after the document,
 * and "unexpected end of file (truncated?)" at the end of a cut-off file.
 * Integers too long for a double keep their exact text for Json_exactInt. */
Status Json_parse(const char *text, size_t len, const char *label, cJSON **root, SpError *err);
/* Json_parse's checks and errors, and the same tree, built in one arena (a
 * million values load several times faster than with a malloc per node). Read
 * it with cJSON's functions, but do not modify it, detach from it or
 * cJSON_Delete it: free it with Json_freeArena. */
Status Json_parseArena(const char *text, size_t len, const char *label, cJSON **root, SpError *err);
void Json_freeArena(cJSON *root);
/* A number that is an integer and fits int64_t exactly: written without fraction
 * or exponent (full 64-bit range), or any form whose value is exact as a double
 * (|v| <= 2^53, e.g. 1e3). */
bool Json_exactInt(const cJSON *v, int64_t *out);
/* The number as written when Json_parse kept its text (long integers), else NULL. */
const char *Json_numberText(const cJSON *v);
/* The first key (in document order) that appears twice in an object (cJSON
 * keeps both), or NULL. O(n log n). */
const char *Json_duplicateKey(const cJSON *object);
/* A number item holding v exactly (printed as an integer at full width). */
cJSON *Json_createInt(int64_t v);

/* JSON paths for messages, "prefix[i]" and "path.key", into buf (n bytes; cut
 * when longer). Without snprintf: readers build one per object, and formatting
 * was most of their time on large files. */
void Json_pathIndex(char *buf, size_t n, const char *prefix, int i);
void Json_pathKey(char *buf, size_t n, const char *path, const char *key);

#endif
