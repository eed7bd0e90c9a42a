/* json: what both JSON readers (network and plan) need on top of cJSON: a
 * whole-document parse with line:column errors, exact integers, duplicate keys. */
#ifndef SPADMAP_JSON_H
#define SPADMAP_JSON_H

#include <cjson/cJSON.h>
#include <stdbool.h>
#include <stdint.h>

#include "status.h"

/* Parses text as exactly one JSON document. Errors: "label:line:col: malformed
 * JSON", at the end of file when the text stops inside a string or with brackets
 * open (a truncated file), or at text after the document (cJSON ignores it). */
Status Json_parse(const char *text, size_t len, const char *label, cJSON **root, SpError *err);
/* A number that is an integer JSON can hold exactly (|v| <= 2^53). */
bool Json_exactInt(const cJSON *v, int64_t *out);
/* The first key that appears twice in an object (cJSON keeps both), or NULL. */
const char *Json_duplicateKey(const cJSON *object);

#endif
