// onnx_seq: sequences of statically known length lowered to plain tensors (C++,
// internal to onnx_infer.cc). A sequence built from tensors (SequenceEmpty,
// SequenceConstruct, SequenceInsert/SequenceErase at constant positions,
// SplitToSequence of a value whose split is known) is a list of tensor names;
// its readers become tensor ops: SequenceAt -> Identity of the element,
// SequenceLength -> a Constant, ConcatFromSequence -> (Unsqueeze and) Concat,
// SplitToSequence -> Split (and Squeeze). A runtime may alias a sequence's
// elements; here they are the tensors themselves, so a sequence costs the memory
// of what it holds. All or nothing: a graph with any sequence this cannot resolve
// (a graph input or output, a Loop or If reading one, a position computed from data)
// is left as it is, and the importer names the value whose shape stays unknown.
#ifndef SPADMAP_ONNX_SEQ_H
#define SPADMAP_ONNX_SEQ_H

#include <string>

#include "onnx_const.h"

// One attempt over m's main graph (shapes as far as inferred). Returns the number of
// sequence nodes lowered (0: none, or not all resolvable yet; why says which), or -1
// with error set (a constant position out of range, a split that does not sum up).
int OnnxSeq_lower(onnx::ModelProto &m, const OnnxConstGiven *given, std::string &why, std::string &error);

#endif
