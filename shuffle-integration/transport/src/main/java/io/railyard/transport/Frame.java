package io.railyard.transport;

import io.netty.buffer.ByteBuf;

/**
 * One decoded frame: its type and its body, a slice the receiver must release once (the handlers
 * do, whatever the type).
 */
record Frame(byte type, ByteBuf body) {}
