/* The version of both programs; the wire protocol has its own (proto.h). */
#ifndef PROTO_VERSION_H
#define PROTO_VERSION_H

#define ORCH_VERSION	"0.1.0"

#endif
