import PFCore
import PFParse
import Testing

/// The model's flags (required, indexed, primary key, embedded class) in the REST `/schemas`
/// shape and parse-server's Mongo `_SCHEMA` documents, and the strict comparison that sees them.
@Suite struct SchemaModelFlagsTests {
    static func flagged() -> ParseSchema {
        var name = ParseSchema.Field(.string)
        name.isPrimaryKey = true
        name.isRequired = true
        var age = ParseSchema.Field(.number)
        age.isIndexed = true
        var address = ParseSchema.Field(.object)
        address.embeddedClass = "Address"
        var schema = ParseSchema()
        schema.classes["Person"] = ["name": name, "age": age, "address": address, "friend": .init(.pointer, targetClass: "Person")]
        return schema
    }

    @Test func theRESTShapeKeepsTheFlags() throws {
        let schema = Self.flagged()
        let rest = schema.restValue
        let entry = rest["results"]?[0]
        #expect(entry?["fields"]?["name"] == ["type": "String", "required": true, "primaryKey": true])
        #expect(entry?["fields"]?["address"] == ["type": "Object", "embeddedClass": "Address"])
        #expect(entry?["fields"]?["friend"] == ["type": "Pointer", "targetClass": "Person"])
        #expect(entry?["indexes"] == ["age_1": ["age": 1]])
        let back = try ParseSchema(rest: rest)
        #expect(schema.modelDifferences(from: back).isEmpty, "\(schema.modelDifferences(from: back))")
    }

    @Test func parseServersMongoSchemaDocumentsGiveTheFlags() throws {
        // parse-server keeps field options and indexes in `_metadata`.
        let document: PFValue = [
            "_id": "Person", "objectId": "string", "name": "string", "age": "number", "city": "string",
            "_metadata": [
                "fields_options": ["name": ["required": true, "primaryKey": true]],
                "indexes": ["_id_": ["_id": 1], "age_1": ["age": 1], "age_city": ["age": 1, "city": 1]],
            ],
        ]
        let schema = try ParseSchema(rest: .array([document]))
        let fields = schema.classes["Person"] ?? [:]
        #expect(fields["name"]?.isRequired == true && fields["name"]?.isPrimaryKey == true && fields["name"]?.isIndexed == false)
        #expect(fields["age"]?.isIndexed == true && fields["city"]?.isIndexed == false)
    }

    @Test func theStrictComparisonSeesEveryFlag() {
        let schema = Self.flagged()
        #expect(schema.modelDifferences(from: schema).isEmpty)
        let changes: [(inout ParseSchema.Field) -> Void] = [
            { $0.isRequired.toggle() }, { $0.isIndexed.toggle() }, { $0.isPrimaryKey.toggle() }, { $0.embeddedClass = "Other" },
        ]
        for change in changes {
            var other = schema
            change(&other.classes["Person"]!["address"]!)
            #expect(other == schema)  // `==` compares types only
            #expect(schema.modelDifferences(from: other).count == 1)
        }
        var missing = schema
        missing.classes["Person"]?["friend"] = nil
        #expect(schema.modelDifferences(from: missing) == ["Person.friend: missing (expected Pointer<Person>)"])
        #expect(missing.modelDifferences(from: schema, extraFields: false).isEmpty)
    }
}
