/* onnx_none: the ONNX boundary when libonnx-dev was not found at build time;
 * Import_onnxJson reports that ONNX support is not compiled in. */
#include "onnx_graph.h"

int OnnxGraph_available(void) { return 0; }

Status OnnxGraph_parse(const void *bytes, size_t len, const char *label, const OnnxDim *dims, int ndims,
                       const OnnxGiven *given, int ngiven, OnnxGraph **out, SpError *err) {
  (void)bytes, (void)len, (void)dims, (void)ndims, (void)given, (void)ngiven;
  *out = NULL;
  return SpError_set(err, SP_ERR_ARG, "%s: built without ONNX support", label);
}

void OnnxGraph_free(OnnxGraph *g) { (void)g; }
