#include "error_names.h"

namespace hk::hip_double {
namespace {

struct Known {
  hipError_t code;
  const char* name;
  const char* text;
};

constexpr Known kErrors[] = {
    {hipSuccess, "hipSuccess", "no error"},
    {hipErrorInvalidValue, "hipErrorInvalidValue", "invalid argument"},
    {hipErrorOutOfMemory, "hipErrorOutOfMemory", "out of memory"},
    {hipErrorNotInitialized, "hipErrorNotInitialized", "initialization error"},
    {hipErrorNoDevice, "hipErrorNoDevice", "no ROCm-capable device is detected"},
    {hipErrorInvalidDevice, "hipErrorInvalidDevice", "invalid device ordinal"},
    {hipErrorInvalidImage, "hipErrorInvalidImage", "device kernel image is invalid"},
    {hipErrorInvalidHandle, "hipErrorInvalidHandle", "invalid resource handle"},
    {hipErrorNotFound, "hipErrorNotFound", "named symbol not found"},
    {hipErrorNotReady, "hipErrorNotReady", "device not ready"},
    {hipErrorIllegalAddress, "hipErrorIllegalAddress", "an illegal memory access was encountered"},
    {hipErrorLaunchFailure, "hipErrorLaunchFailure", "unspecified launch failure"},
    {hipErrorNotSupported, "hipErrorNotSupported", "operation not supported"},
    {hipErrorUnknown, "hipErrorUnknown", "unknown error"},
};

const Known* find(hipError_t e) {
  for (const Known& k : kErrors)
    if (k.code == e) return &k;
  return nullptr;
}

}  // namespace

const char* error_name(hipError_t e) {
  const Known* k = find(e);
  return k ? k->name : "hipErrorUnknown";
}

const char* error_text(hipError_t e) {
  const Known* k = find(e);
  return k ? k->text : "unknown error";
}

const char* hiprtc_error_name(hiprtcResult r) {
  switch (r) {
    case HIPRTC_SUCCESS: return "HIPRTC_SUCCESS";
    case HIPRTC_ERROR_OUT_OF_MEMORY: return "HIPRTC_ERROR_OUT_OF_MEMORY";
    case HIPRTC_ERROR_PROGRAM_CREATION_FAILURE: return "HIPRTC_ERROR_PROGRAM_CREATION_FAILURE";
    case HIPRTC_ERROR_INVALID_INPUT: return "HIPRTC_ERROR_INVALID_INPUT";
    case HIPRTC_ERROR_INVALID_PROGRAM: return "HIPRTC_ERROR_INVALID_PROGRAM";
    case HIPRTC_ERROR_INVALID_OPTION: return "HIPRTC_ERROR_INVALID_OPTION";
    case HIPRTC_ERROR_COMPILATION: return "HIPRTC_ERROR_COMPILATION";
    case HIPRTC_ERROR_BUILTIN_OPERATION_FAILURE: return "HIPRTC_ERROR_BUILTIN_OPERATION_FAILURE";
    case HIPRTC_ERROR_NO_NAME_EXPRESSIONS_AFTER_COMPILATION: return "HIPRTC_ERROR_NO_NAME_EXPRESSIONS_AFTER_COMPILATION";
    case HIPRTC_ERROR_NO_LOWERED_NAMES_BEFORE_COMPILATION: return "HIPRTC_ERROR_NO_LOWERED_NAMES_BEFORE_COMPILATION";
    case HIPRTC_ERROR_NAME_EXPRESSION_NOT_VALID: return "HIPRTC_ERROR_NAME_EXPRESSION_NOT_VALID";
    case HIPRTC_ERROR_INTERNAL_ERROR: return "HIPRTC_ERROR_INTERNAL_ERROR";
  }
  return "HIPRTC_ERROR_INTERNAL_ERROR";
}

}  // namespace hk::hip_double
