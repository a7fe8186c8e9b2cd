//! The crates generated from tests/fixtures/multi-file (tests/generated/multi-file), a document
//! split over files, over real HTTP on 127.0.0.1: path items, parameters, request bodies,
//! responses, headers, the security scheme and schemas each from a file of their own, a ref into a
//! schema's property (`Address`, `Species`), `$defs` (`Tag`, the vaccinations), a cycle across
//! files (a pet's owner lists pets) and an operation given by `$ref`. Each arrives typed on both
//! sides as if the document were one file.

use multi_file_client::Client;
use multi_file_client::errors;
use multi_file_server::models::{
    Address, Distemper, DistemperKind, Error, Owner, Pet, Rabies, RabiesKind, Species, Tag,
    Vaccination,
};
use multi_file_server::*;
use std::sync::{Arc, Mutex};

const TOKEN: &str = "clinic-token";

struct Clinic {
    pets: Mutex<Vec<Pet>>,
}

fn owner() -> Owner {
    Owner {
        id: 7,
        name: "Ann".to_owned(),
        address: Some(Address {
            street: None,
            city: "Lyon".to_owned(),
        }),
        pets: None,
    }
}

fn not_found(what: &str) -> Error {
    Error {
        code: "not_found".to_owned(),
        message: format!("no {what}"),
    }
}

impl PetClinicApi for Clinic {
    type Principal = ();

    async fn authenticate(&self, bearer_token: &str) -> Result<(), Rejection> {
        if bearer_token == TOKEN {
            Ok(())
        } else {
            Err(Rejection::invalid_token("unknown token"))
        }
    }

    fn rejection(&self, rejection: &Rejection) -> Error {
        Error {
            code: "bad_request".to_owned(),
            message: rejection.message.clone(),
        }
    }

    async fn list_pets(&self, _: (), request: ListPetsRequest) -> ListPetsResponse {
        let pets: Vec<Pet> = self
            .pets
            .lock()
            .unwrap()
            .iter()
            .filter(|p| request.species.as_ref().is_none_or(|s| *s == p.species))
            .take(request.limit.unwrap_or(100) as usize)
            .cloned()
            .collect();
        ListPetsResponse::Ok {
            body: pets,
            x_rate_remaining: Some(59),
        }
    }

    async fn create_pet(&self, _: (), request: CreatePetRequest) -> CreatePetResponse {
        self.pets.lock().unwrap().push(request.body.clone());
        CreatePetResponse::Created(request.body)
    }

    async fn get_pet(&self, _: (), request: GetPetRequest) -> GetPetResponse {
        let pets = self.pets.lock().unwrap();
        match pets.iter().find(|p| p.id == request.pet_id) {
            Some(pet) => GetPetResponse::Ok(pet.clone()),
            None => GetPetResponse::NotFound(not_found("pet")),
        }
    }

    async fn get_owner(&self, _: (), request: GetOwnerRequest) -> GetOwnerResponse {
        if request.owner_id != 7 {
            return GetOwnerResponse::NotFound(not_found("owner"));
        }
        GetOwnerResponse::Ok(Owner {
            pets: Some(self.pets.lock().unwrap().clone()),
            ..owner()
        })
    }

    async fn get_owner_address(
        &self,
        _: (),
        request: GetOwnerAddressRequest,
    ) -> GetOwnerAddressResponse {
        match (request.owner_id, owner().address) {
            (7, Some(address)) => GetOwnerAddressResponse::Ok(address),
            _ => GetOwnerAddressResponse::NotFound(not_found("owner")),
        }
    }
}

async fn server() -> String {
    let clinic = Arc::new(Clinic {
        pets: Mutex::new(Vec::new()),
    });
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("bind 127.0.0.1:0");
    let address = listener.local_addr().expect("local address");
    tokio::spawn(async move {
        axum::serve(listener, router(clinic))
            .await
            .expect("server runs")
    });
    format!("http://{address}")
}

fn rex() -> Pet {
    Pet {
        id: 1,
        name: "Rex".to_owned(),
        species: Species::Dog,
        tags: Some(vec![Tag {
            label: "good boy".to_owned(),
        }]),
        // The cycle across files: a pet's owner, whose pets are pets.
        owner: Some(Owner {
            pets: Some(Vec::new()),
            ..owner()
        }),
        vaccination: Some(Vaccination::Rabies(Rabies {
            kind: RabiesKind::Rabies,
            until: "2027-05-01".parse().unwrap(),
        })),
    }
}

fn tom() -> Pet {
    Pet {
        id: 2,
        name: "Tom".to_owned(),
        species: Species::Cat,
        tags: None,
        owner: None,
        vaccination: Some(Vaccination::Distemper(Distemper {
            kind: DistemperKind::Distemper,
            doses: 2,
        })),
    }
}

#[tokio::test]
async fn every_object_from_another_file_round_trips() {
    let base = server().await;
    let client = Client::builder(base.clone())
        .bearer_token(TOKEN)
        .build()
        .expect("client");
    // The request body (request-bodies/new-pet.yaml) and its schema (schemas/pet.yaml, with its
    // `$defs` and the owner from schemas/owner.json).
    assert_eq!(client.create_pet(rex()).await.expect("create"), rex());
    assert_eq!(client.create_pet(tom()).await.expect("create"), tom());

    // The path item of paths/pets.yaml, its parameter from parameters/limit.yaml and the one
    // whose schema is a property of schemas/pet.yaml; the header from headers/*.yaml.
    let cats = client
        .list_pets()
        .species(Species::Cat)
        .send_full()
        .await
        .expect("list");
    assert_eq!(cats.body, vec![tom()]);
    assert_eq!(cats.documented.x_rate_remaining, Some(59));
    let first = client.list_pets().limit(1).await.expect("list");
    assert_eq!(first, vec![rex()]);

    // The path item of paths/pet.yaml and the response of responses/not-found.yaml, typed.
    assert_eq!(client.get_pet(2).await.expect("get"), tom());
    let missing = client.get_pet(99).await.expect_err("404");
    let Some(errors::GetPet::NotFound(body)) = missing.api_body() else {
        panic!("a documented 404: {missing:?}");
    };
    assert_eq!(body.code, "not_found");

    // The operation given by `$ref` (operations/get-owner.yaml), answering the cycle.
    let owner = client.get_owner(7).await.expect("owner");
    assert_eq!(owner.pets.as_deref(), Some(&[rex(), tom()][..]));
    // The ref into a property of schemas/owner.json is one type, `Address`, in both places.
    let address: Address = client.get_owner_address(7).await.expect("address");
    assert_eq!(Some(address), owner.address);
}

#[tokio::test]
async fn the_server_checks_what_the_files_say() {
    let base = server().await;
    let http = reqwest::Client::new();
    // The security scheme of security/bearer.yaml.
    let unauthenticated = http.get(format!("{base}/pets")).send().await.expect("sent");
    assert_eq!(unauthenticated.status(), 401);
    // parameters/limit.yaml says 1..=100.
    let too_many = http
        .get(format!("{base}/pets?limit=500"))
        .bearer_auth(TOKEN)
        .send()
        .await
        .expect("sent");
    assert_eq!(too_many.status(), 400);
    // The enum moved out of schemas/pet.yaml's properties.
    let bad_species = http
        .get(format!("{base}/pets?species=fish"))
        .bearer_auth(TOKEN)
        .send()
        .await
        .expect("sent");
    assert_eq!(bad_species.status(), 400);
    // The discriminator's mapping to `$defs` of schemas/vaccination.yaml.
    let bad_vaccination = http
        .post(format!("{base}/pets"))
        .bearer_auth(TOKEN)
        .json(&serde_json::json!({
            "id": 3, "name": "Polly", "species": "parrot",
            "vaccination": {"kind": "rabies", "doses": 1}
        }))
        .send()
        .await
        .expect("sent");
    assert_eq!(bad_vaccination.status(), 400);
    let body: serde_json::Value = bad_vaccination.json().await.expect("error body");
    assert_eq!(body["code"], "bad_request", "{body}");
}
