// <hipcub/block/block_store.hpp> on the host backend: hipCUB's names for the host cub stand-ins.
#pragma once
#include <hipcub/hipcub.hpp>
