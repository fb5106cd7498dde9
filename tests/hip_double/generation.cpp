#include "generation.h"

namespace hk::hip_double {

// The numbers of the releases each generation stands for: bookworm's ROCm 5.2.3 and ROCm 6.4.3.
#if HIP_DOUBLE_ROCM == 5
extern const RocmGeneration kGeneration{5, 50221153};
#elif HIP_DOUBLE_ROCM == 6
extern const RocmGeneration kGeneration{6, 60443484};
#else
#error "HIP_DOUBLE_ROCM must be 5 or 6"
#endif

}  // namespace hk::hip_double
