// <hipcub/warp/warp_reduce.hpp> on the host backend: hipCUB's names for the host cub stand-ins.
#pragma once
#include <hipcub/hipcub.hpp>
