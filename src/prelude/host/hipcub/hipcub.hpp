// hipcub on the host backend: not provided, as cub is not.
#pragma once
#error "hipcub is not supported by the hkcheck host backend; mark the kernel \"gpu_only\" in its manifest, or use cooperative groups"
