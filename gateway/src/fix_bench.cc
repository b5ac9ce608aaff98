namespace cfx { namespace gateway { } }
