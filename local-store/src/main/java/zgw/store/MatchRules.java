// Rewrites a query so that the library's matcher answers it as MongoDB does. MongoDB applies each operator of a field
// condition on its own: {v: {$gt: 5, $lt: 10}} holds for [1, 20] (20 is above 5, 1 below 10), where the library asks
// one element to meet both (that is $elemMatch). The rewrite gives each operator its own condition under $and, which
// changes nothing for a value that is not an array. $regex keeps its $options; $elemMatch and $not are left whole.
// And {v: [8]} holds for [3, [8]], whose element is that array.

package zgw.store;

import de.bwaldvogel.mongo.bson.Document;

import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;

final class MatchRules {
    private MatchRules() {
    }

    @SuppressWarnings("unchecked")
    static Document rewrite(Document query) {
        Document out = null;
        List<Object> and = null;
        for (Map.Entry<String, Object> e : query.entrySet()) {
            String key = e.getKey();
            Object value = e.getValue();
            Object rewritten = value;
            List<Document> split = null;
            if ((key.equals("$and") || key.equals("$or") || key.equals("$nor")) && value instanceof Collection) {
                List<Object> parts = new ArrayList<>();
                boolean changed = false;
                for (Object p : (Collection<Object>) value) {
                    Object r = p instanceof Document ? rewrite((Document) p) : p;
                    changed |= r != p;
                    parts.add(r);
                }
                rewritten = changed ? parts : value;
            } else if (!key.startsWith("$") && value instanceof Document) {
                split = split(key, (Document) value);
            } else if (!key.startsWith("$") && value instanceof Collection) {
                // an array matches the array itself, or an element that is that array
                split = List.of(new Document("$or", List.of(new Document(key, value),
                    new Document(key, new Document("$elemMatch", new Document("$eq", value))))));
            }
            if (rewritten == value && split == null) {
                if (out != null) {
                    out.put(key, value);
                }
                continue;
            }
            if (out == null) {
                out = new Document();
                for (Map.Entry<String, Object> before : query.entrySet()) {
                    if (before.getKey().equals(key)) {
                        break;
                    }
                    out.put(before.getKey(), before.getValue());
                }
            }
            if (split != null) {
                if (and == null) {
                    and = new ArrayList<>();
                }
                and.addAll(split);
            } else {
                out.put(key, rewritten);
            }
        }
        if (out == null) {
            return query;
        }
        if (and != null) {
            Object existing = out.get("$and");
            List<Object> all = new ArrayList<>();
            if (existing instanceof Collection) {
                all.addAll((Collection<Object>) existing);
            }
            all.addAll(and);
            out.put("$and", all);
        }
        return out;
    }

    /** The operators of a field condition each as a condition of its own; null when there is nothing to split. */
    private static List<Document> split(String field, Document condition) {
        int operators = 0;
        for (String k : condition.keySet()) {
            if (!k.startsWith("$")) {
                return null; // an embedded document to match as a whole
            }
            if (!k.equals("$options")) {
                operators++;
            }
        }
        if (operators < 2) {
            return null;
        }
        List<Document> out = new ArrayList<>();
        for (Map.Entry<String, Object> op : condition.entrySet()) {
            if (op.getKey().equals("$options")) {
                continue;
            }
            Document one = new Document(op.getKey(), op.getValue());
            if (op.getKey().equals("$regex") && condition.containsKey("$options")) {
                one.put("$options", condition.get("$options"));
            }
            out.add(new Document(field, one));
        }
        return out;
    }
}
