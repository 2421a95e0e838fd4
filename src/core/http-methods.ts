/** The methods of an OpenAPI path item (and of HTTP the client can send), lower case, in the specification's order. */
export const HTTP_METHODS = ["get", "put", "post", "delete", "options", "head", "patch", "trace"] as const;

export type HttpMethod = (typeof HTTP_METHODS)[number];
