import Foundation
import UtensilCore

/// The OpenAPI 3.1 document of the JSON API, served at `GET /api/v1/openapi.json`.
///
/// It is the API's one description: ``APIMethodCheck`` answers 405 from its list of
/// operations, a test compares that list with the router's `/api/` routes, and
/// `make openapi-test` validates it (openapi-spec-validator), checks every documented
/// answer against the running daemon (schemathesis) and lists utensils through a client
/// generated from it (openapi-python-client).
enum OpenAPIDocument {
    /// The document's operations: path template (`/api/v1/utensils/{id}`) → methods in
    /// upper case.
    static let operations: [String: Set<String>] = {
        guard let root = try? JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any],
              let paths = root["paths"] as? [String: Any]
        else { preconditionFailure("OpenAPIDocument.json is not an OpenAPI document") }
        return paths.mapValues { item in Set(((item as? [String: Any]) ?? [:]).keys.map { $0.uppercased() }) }
    }()

    /// The methods a request path may use, if the document describes that path (a `{…}`
    /// template segment matches any one segment); `HEAD` wherever `GET` is.
    static func allowedMethods(forPath path: String) -> Set<String>? {
        let segments = path.split(separator: "/", omittingEmptySubsequences: false)
        for (template, methods) in operations {
            let templateSegments = template.split(separator: "/", omittingEmptySubsequences: false)
            guard templateSegments.count == segments.count else { continue }
            let matches = zip(templateSegments, segments).allSatisfy { template, segment in
                (template.hasPrefix("{") && template.hasSuffix("}") && !segment.isEmpty) || template == segment
            }
            if matches { return methods.contains("GET") ? methods.union(["HEAD"]) : methods }
        }
        return nil
    }

    /// ``PhotoExtension``'s list, as the document's JSON array items.
    private static let extensions = PhotoExtension.allCases.map { "\"\($0.rawValue)\"" }.joined(separator: ", ")

    static let json = #"""
{
  "openapi": "3.1.0",
  "info": {
    "title": "utensild gallery API",
    "version": "1",
    "summary": "The utensils of a utensild catalog, as JSON: the answers of `utensilctl --json`.",
    "description": "Reading is open to whoever can reach the gallery's listener; uploading needs a signed-in session (the `utensild_session` cookie set by `POST /login`) and a same-origin request. Errors are `{\"error\": {\"code\": …, \"message\": …}}`, worded as the control socket words them. Every route also answers `HEAD` as it answers `GET`.",
    "license": {
      "name": "MIT",
      "identifier": "MIT"
    }
  },
  "servers": [
    {
      "url": "/"
    }
  ],
  "paths": {
    "/api/v1/utensils": {
      "get": {
        "operationId": "listUtensils",
        "summary": "A page of utensils (`utensilctl list --json`)",
        "parameters": [
          {
            "name": "search",
            "in": "query",
            "description": "Part of the name; case and accents do not decide. At most 200 code points (a letter and a combining accent are two).",
            "schema": {
              "type": "string",
              "maxLength": 200
            }
          },
          {
            "name": "category",
            "in": "query",
            "description": "Only the utensils of this category.",
            "schema": {
              "type": "string",
              "maxLength": 100
            }
          },
          {
            "name": "sort",
            "in": "query",
            "description": "`-created` (newest first, the default), `created` or `name`.",
            "schema": {
              "type": "string",
              "enum": [
                "name",
                "created",
                "-created"
              ]
            }
          },
          {
            "name": "limit",
            "in": "query",
            "description": "How many utensils at most.",
            "schema": {
              "type": "integer",
              "minimum": 1,
              "maximum": 500,
              "default": 50
            }
          },
          {
            "name": "after",
            "in": "query",
            "description": "The `next` cursor of the page before.",
            "schema": {
              "type": "string",
              "maxLength": 512
            }
          },
          {
            "name": "favorites",
            "in": "query",
            "description": "`1` (or `true`): only the signed-in user's favorites (needs the session cookie); `0` or absent: every utensil.",
            "schema": {
              "type": "string",
              "enum": [
                "1",
                "true",
                "0",
                "false"
              ]
            }
          }
        ],
        "responses": {
          "200": {
            "description": "The page, and the cursor of the next one (null on the last).",
            "content": {
              "application/json": {
                "schema": {
                  "$ref": "#/components/schemas/UtensilPage"
                }
              }
            }
          },
          "400": {
            "$ref": "#/components/responses/BadRequest"
          },
          "503": {
            "$ref": "#/components/responses/Busy"
          },
          "401": {
            "$ref": "#/components/responses/Unauthorized"
          }
        },
        "security": [
          {},
          {
            "session": []
          }
        ]
      }
    },
    "/api/v1/utensils/{id}": {
      "get": {
        "operationId": "getUtensil",
        "summary": "One utensil (`utensilctl show --json`)",
        "parameters": [
          {
            "name": "id",
            "in": "path",
            "required": true,
            "description": "The utensil's id (upper or lower case).",
            "schema": {
              "type": "string"
            }
          }
        ],
        "responses": {
          "200": {
            "description": "The utensil.",
            "content": {
              "application/json": {
                "schema": {
                  "$ref": "#/components/schemas/Utensil"
                }
              }
            }
          },
          "404": {
            "$ref": "#/components/responses/NotFound"
          },
          "503": {
            "$ref": "#/components/responses/Busy"
          }
        },
        "security": [
          {},
          {
            "session": []
          }
        ]
      }
    },
    "/api/v1/categories": {
      "get": {
        "operationId": "listCategories",
        "summary": "Every category with its count (`utensilctl categories --json`)",
        "responses": {
          "200": {
            "description": "The categories, by name.",
            "content": {
              "application/json": {
                "schema": {
                  "type": "array",
                  "items": {
                    "$ref": "#/components/schemas/Category"
                  }
                }
              }
            }
          },
          "503": {
            "$ref": "#/components/responses/Busy"
          }
        }
      }
    },
    "/api/v1/status": {
      "get": {
        "operationId": "getStatus",
        "summary": "The daemon's status (`utensilctl status --json`)",
        "responses": {
          "200": {
            "description": "The status.",
            "content": {
              "application/json": {
                "schema": {
                  "$ref": "#/components/schemas/Status"
                }
              }
            }
          },
          "503": {
            "$ref": "#/components/responses/Busy"
          }
        }
      }
    },
    "/api/v1/events": {
      "get": {
        "operationId": "followEvents",
        "summary": "Live events, as server-sent events (`utensilctl events --json`)",
        "description": "A stream that does not end: `event: ingested`, `event: rejected`, `event: rethumb` or `event: category`, each `data:` line one Event object and `id:` its seq; a `: keep-alive` comment every 15 s. (components/schemas/Event). With Last-Event-ID or since, the events after that seq the catalog keeps come first; one no longer kept gets `event: fell-behind`.",
        "parameters": [
          {
            "name": "since",
            "in": "query",
            "description": "Replay the events after this seq first.",
            "schema": {
              "type": "integer",
              "minimum": 0
            }
          },
          {
            "name": "Last-Event-ID",
            "in": "header",
            "description": "Sent by a reconnecting EventSource: the seq of the last event it saw; the events after it come first.",
            "schema": {
              "type": "string"
            }
          }
        ],
        "responses": {
          "200": {
            "description": "The stream.",
            "content": {
              "text/event-stream": {
                "schema": {
                  "type": "string"
                }
              }
            }
          }
        }
      }
    },
    "/api/v1/uploads": {
      "post": {
        "operationId": "uploadPhotos",
        "summary": "Puts photos into the inbox, as if dropped there",
        "description": "Each file part becomes a file in the inbox under its own file name; the ingest then goes as for any drop (follow `/api/v1/events` for its `inboxFile`). A `category` field before the files puts them in that category.",
        "security": [
          {
            "session": []
          }
        ],
        "requestBody": {
          "required": true,
          "content": {
            "multipart/form-data": {
              "schema": {
                "type": "object",
                "properties": {
                  "category": {
                    "type": "string",
                    "maxLength": 100
                  },
                  "file": {
                    "type": "array",
                    "items": {
                      "type": "string",
                      "contentMediaType": "application/octet-stream"
                    }
                  }
                }
              }
            }
          }
        },
        "responses": {
          "200": {
            "description": "What became of each file.",
            "content": {
              "application/json": {
                "schema": {
                  "$ref": "#/components/schemas/UploadOutcome"
                }
              }
            }
          },
          "400": {
            "$ref": "#/components/responses/BadRequest"
          },
          "401": {
            "$ref": "#/components/responses/Unauthorized"
          },
          "403": {
            "$ref": "#/components/responses/Forbidden"
          },
          "413": {
            "$ref": "#/components/responses/TooLarge"
          },
          "415": {
            "$ref": "#/components/responses/BadRequest"
          },
          "429": {
            "$ref": "#/components/responses/TooManyUploads"
          },
          "503": {
            "$ref": "#/components/responses/Busy"
          }
        }
      }
    },
    "/api/v1/openapi.json": {
      "get": {
        "operationId": "getOpenAPIDocument",
        "summary": "This document",
        "responses": {
          "200": {
            "description": "The OpenAPI 3.1 document of the API.",
            "content": {
              "application/json": {
                "schema": {
                  "type": "object"
                }
              }
            }
          }
        }
      }
    }
  },
  "components": {
    "securitySchemes": {
      "session": {
        "type": "apiKey",
        "in": "cookie",
        "name": "utensild_session",
        "description": "Set by `POST /login` (form fields `name`, `password`)."
      }
    },
    "schemas": {
      "Timestamp": {
        "type": "string",
        "format": "date-time",
        "description": "UTC, to the millisecond: `2026-11-25T23:55:53.102Z`."
      },
      "Utensil": {
        "type": "object",
        "required": [
          "id",
          "name",
          "extension",
          "createdAt",
          "width",
          "height",
          "bytes",
          "original",
          "thumbnail",
          "category",
          "addedBy",
          "updatedAt"
        ],
        "properties": {
          "id": {
            "type": "string",
            "pattern": "^[0-9A-F]{8}-[0-9A-F]{4}-[0-9A-F]{4}-[0-9A-F]{4}-[0-9A-F]{12}$"
          },
          "name": {
            "type": "string",
            "minLength": 1,
            "maxLength": 400,
            "description": "At most 100 characters, no line breaks."
          },
          "extension": {
            "type": "string",
            "enum": [\#(extensions)]
          },
          "createdAt": {
            "$ref": "#/components/schemas/Timestamp"
          },
          "width": {
            "type": "integer",
            "minimum": 1
          },
          "height": {
            "type": "integer",
            "minimum": 1
          },
          "bytes": {
            "type": "integer",
            "minimum": 1
          },
          "original": {
            "type": "string",
            "description": "The original's path on the daemon's machine."
          },
          "thumbnail": {
            "type": "string",
            "description": "The 180 px thumbnail's path on the daemon's machine."
          },
          "category": {
            "type": [
              "string",
              "null"
            ]
          },
          "addedBy": {
            "type": [
              "string",
              "null"
            ],
            "description": "The user who dropped, uploaded or last replaced it."
          },
          "host": {
            "type": [
              "string",
              "null"
            ],
            "description": "The host_name of the host that ingested it (or last replaced its photo); null for utensils from before this was recorded."
          },
          "nearDuplicateOf": {
            "oneOf": [
              {
                "type": "object",
                "required": [
                  "id",
                  "name",
                  "distance"
                ],
                "properties": {
                  "id": {
                    "type": "string"
                  },
                  "name": {
                    "type": "string"
                  },
                  "distance": {
                    "type": "integer",
                    "minimum": 0,
                    "maximum": 12
                  }
                }
              },
              {
                "type": "null"
              }
            ],
            "description": "The earlier utensil its photo looked like a copy of when it was ingested (near_duplicates = \"warn\"): its id, its name then, and how many of the 64 fingerprint bits differ; null when none, or once the two are marked not a copy."
          },
          "updatedAt": {
            "oneOf": [
              {
                "$ref": "#/components/schemas/Timestamp"
              },
              {
                "type": "null"
              }
            ]
          },
          "trashedAt": {
            "$ref": "#/components/schemas/Timestamp"
          },
          "purgeAt": {
            "$ref": "#/components/schemas/Timestamp"
          },
          "favorite": {
            "type": "boolean",
            "description": "Whether it is a favorite of the signed-in user; `false` without a session. Left out of events."
          },
          "preview": {
            "type": "string",
            "description": "The display-size JPEG's path on the daemon's machine (long side at most 1,600 px); served at /previews/{id}.jpeg."
          }
        }
      },
      "UtensilPage": {
        "type": "object",
        "required": [
          "utensils",
          "next"
        ],
        "properties": {
          "utensils": {
            "type": "array",
            "items": {
              "$ref": "#/components/schemas/Utensil"
            }
          },
          "next": {
            "type": [
              "string",
              "null"
            ],
            "description": "Pass as `after` for the next page; null on the last."
          }
        }
      },
      "Category": {
        "type": "object",
        "required": [
          "name",
          "count"
        ],
        "properties": {
          "name": {
            "type": "string"
          },
          "count": {
            "type": "integer",
            "minimum": 0
          }
        }
      },
      "Rethumb": {
        "type": "object",
        "required": [
          "selection",
          "size",
          "total",
          "done",
          "failed",
          "startedAt"
        ],
        "properties": {
          "selection": {
            "type": "string",
            "enum": [
              "all",
              "missing",
              "ids"
            ]
          },
          "size": {
            "type": "integer"
          },
          "total": {
            "type": "integer"
          },
          "done": {
            "type": "integer"
          },
          "failed": {
            "type": "integer"
          },
          "startedAt": {
            "$ref": "#/components/schemas/Timestamp"
          },
          "finishedAt": {
            "oneOf": [
              {
                "$ref": "#/components/schemas/Timestamp"
              },
              {
                "type": "null"
              }
            ]
          }
        }
      },
      "Status": {
        "type": "object",
        "required": [
          "version",
          "pid",
          "uptimeSeconds",
          "inbox",
          "rejectedDir",
          "stateDir",
          "utensils",
          "queued",
          "inFlight",
          "ingested",
          "rejected",
          "lastError",
          "watching",
          "inboxMissing"
        ],
        "properties": {
          "version": {
            "type": "string"
          },
          "pid": {
            "type": "integer"
          },
          "uptimeSeconds": {
            "type": "integer",
            "minimum": 0
          },
          "inbox": {
            "type": "string"
          },
          "rejectedDir": {
            "type": "string"
          },
          "stateDir": {
            "type": "string"
          },
          "utensils": {
            "type": "integer",
            "minimum": 0
          },
          "queued": {
            "type": "integer",
            "minimum": 0
          },
          "inFlight": {
            "type": "integer",
            "minimum": 0
          },
          "ingested": {
            "type": "integer",
            "minimum": 0
          },
          "rejected": {
            "type": "integer",
            "minimum": 0
          },
          "lastError": {
            "type": [
              "string",
              "null"
            ]
          },
          "lastErrorAt": {
            "type": "string",
            "format": "date-time",
            "description": "When `lastError` happened (for an outage of the catalog: since when); absent without an error."
          },
          "lastErrorPassed": {
            "type": "boolean",
            "description": "Whether `lastError` has passed (nothing waits for a retry and the catalog answers); absent without an error."
          },
          "watching": {
            "type": "string",
            "description": "`inotify`, or `polling` where inotify does not reach the inbox."
          },
          "inboxMissing": {
            "type": "boolean"
          },
          "rethumb": {
            "$ref": "#/components/schemas/Rethumb"
          }
        }
      },
      "Event": {
        "type": "object",
        "required": [
          "kind",
          "at",
          "inboxFile"
        ],
        "properties": {
          "kind": {
            "type": "string",
            "enum": [
              "ingested",
              "rejected",
              "rethumb",
              "category"
            ]
          },
          "at": {
            "$ref": "#/components/schemas/Timestamp"
          },
          "inboxFile": {
            "type": "string"
          },
          "utensil": {
            "$ref": "#/components/schemas/Utensil"
          },
          "reason": {
            "type": "string"
          },
          "message": {
            "type": "string"
          },
          "rethumb": {
            "$ref": "#/components/schemas/Rethumb"
          },
          "categoryChange": {
            "$ref": "#/components/schemas/CategoryChange"
          },
          "seq": {
            "type": "integer",
            "description": "Its number in the catalog's event log: only grows across the whole catalog. Absent only for an event the catalog could not record when it happened, or from a host of an older utensild."
          },
          "host": {
            "type": "string",
            "description": "The host_name of the host where it happened (with a shared catalog, every host's events reach every host)."
          }
        }
      },
      "CategoryChange": {
        "type": "object",
        "description": "A category renamed, merged into another or deleted (`utensilctl category rename|delete`, or the gallery's category forms).",
        "required": [
          "from",
          "to",
          "moved",
          "merged",
          "count"
        ],
        "properties": {
          "from": {
            "type": "string",
            "description": "The category as it was spelled."
          },
          "to": {
            "type": [
              "string",
              "null"
            ],
            "description": "The category its utensils are in now (an existing one's spelling after a merge); null after a delete."
          },
          "moved": {
            "type": "integer",
            "minimum": 0,
            "description": "Utensils (not in the trash) that changed category."
          },
          "merged": {
            "type": "boolean"
          },
          "count": {
            "type": "integer",
            "minimum": 0,
            "description": "Utensils (not in the trash) in `to` now; 0 after a delete."
          }
        }
      },
      "UploadOutcome": {
        "type": "object",
        "required": [
          "files"
        ],
        "properties": {
          "files": {
            "type": "array",
            "items": {
              "type": "object",
              "required": [
                "file",
                "status"
              ],
              "properties": {
                "file": {
                  "type": "string"
                },
                "status": {
                  "type": "string",
                  "enum": [
                    "accepted",
                    "refused"
                  ]
                },
                "inboxFile": {
                  "type": "string",
                  "description": "accepted: where it is, relative to the inbox."
                },
                "message": {
                  "type": "string",
                  "description": "refused: one sentence saying what to do."
                }
              }
            }
          }
        }
      },
      "Error": {
        "type": "object",
        "required": [
          "error"
        ],
        "properties": {
          "error": {
            "type": "object",
            "required": [
              "code",
              "message"
            ],
            "properties": {
              "code": {
                "type": "string",
                "enum": [
                  "not-found",
                  "invalid-name",
                  "duplicate-name",
                  "permission-denied",
                  "bad-request",
                  "request-too-large",
                  "unsupported-version",
                  "busy",
                  "internal"
                ]
              },
              "message": {
                "type": "string",
                "description": "One sentence saying what to do."
              }
            }
          }
        }
      }
    },
    "responses": {
      "BadRequest": {
        "description": "The request is not one this API takes; the message says what to change.",
        "content": {
          "application/json": {
            "schema": {
              "$ref": "#/components/schemas/Error"
            }
          }
        }
      },
      "NotFound": {
        "description": "No such utensil.",
        "content": {
          "application/json": {
            "schema": {
              "$ref": "#/components/schemas/Error"
            }
          }
        }
      },
      "Unauthorized": {
        "description": "No session: sign in at /login.",
        "content": {
          "application/json": {
            "schema": {
              "$ref": "#/components/schemas/Error"
            }
          }
        }
      },
      "Forbidden": {
        "description": "A cross-site request.",
        "content": {
          "application/json": {
            "schema": {
              "$ref": "#/components/schemas/Error"
            }
          }
        }
      },
      "TooLarge": {
        "description": "More or larger files than one upload takes.",
        "content": {
          "application/json": {
            "schema": {
              "$ref": "#/components/schemas/Error"
            }
          }
        }
      },
      "TooManyUploads": {
        "description": "The signed-in user has as many uploads in progress as the gallery takes from one user; retry after `Retry-After` seconds.",
        "content": {
          "application/json": {
            "schema": {
              "$ref": "#/components/schemas/Error"
            }
          }
        }
      },
      "Busy": {
        "description": "The catalog is busy or unavailable, or the gallery takes no more uploads or descriptors for now; retry later.",
        "content": {
          "application/json": {
            "schema": {
              "$ref": "#/components/schemas/Error"
            }
          }
        }
      }
    }
  }
}
"""#
}
