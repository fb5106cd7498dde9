// cub on the host backend: not provided.
#pragma once
#error "cub is not supported by the hkcheck host backend; mark the kernel \"gpu_only\" in its manifest, or use cooperative_groups"
